/**
 * The slice of the TL serialization the local liteserver speaks: little-endian ints, 256-bit values, TL `bytes`
 * (length prefix, padding to 4) and the constructor ids of the lite_api and adnl schemes it answers.
 * Invariant: every reader consumes exactly what the matching writer produced, and a short input throws.
 */

/** Constructor ids (the int32 every boxed TL object starts with), with the scheme line each belongs to. */
export const TL = {
  /** adnl.message.query query_id:int256 query:bytes = adnl.Message */
  adnlMessageQuery: 0xb48bf97a | 0,
  /** adnl.message.answer query_id:int256 answer:bytes = adnl.Message */
  adnlMessageAnswer: 0x0fac8416,
  /** liteServer.query data:bytes = Object */
  liteServerQuery: 0x798c06df,
  /** liteServer.waitMasterchainSeqno seqno:int timeout_ms:int = Object (a prefix before the real query) */
  waitMasterchainSeqno: 0xbaeab892 | 0,
  /** liteServer.error code:int message:string = liteServer.Error */
  error: 0xbba9e148 | 0,
  /** liteServer.getMasterchainInfo = liteServer.MasterchainInfo */
  getMasterchainInfo: 0x89b5e62e | 0,
  /** liteServer.masterchainInfo last:tonNode.blockIdExt state_root_hash:int256 init:tonNode.zeroStateIdExt */
  masterchainInfo: 0x85832881 | 0,
  /** liteServer.getMasterchainInfoExt mode:# = liteServer.MasterchainInfoExt */
  getMasterchainInfoExt: 0x70a671df,
  /** liteServer.masterchainInfoExt mode:# version:int capabilities:long last:tonNode.blockIdExt ... */
  masterchainInfoExt: 0xa8cce0f5 | 0,
  /** liteServer.getTime = liteServer.CurrentTime */
  getTime: 0x16ad5a34,
  /** liteServer.currentTime now:int = liteServer.CurrentTime */
  currentTime: 0xe953000d | 0,
  /** liteServer.getVersion = liteServer.Version */
  getVersion: 0x232b940b,
  /** liteServer.version mode:# version:int capabilities:long now:int = liteServer.Version */
  version: 0x5a0491e5,
  /** liteServer.getBlock id:tonNode.blockIdExt = liteServer.BlockData */
  getBlock: 0x6377cf0d,
  /** liteServer.blockData id:tonNode.blockIdExt data:bytes = liteServer.BlockData */
  blockData: 0xa574ed6c | 0,
  /** liteServer.getBlockHeader id:tonNode.blockIdExt mode:# = liteServer.BlockHeader */
  getBlockHeader: 0x21ec069e,
  /** liteServer.lookupBlock mode:# id:tonNode.blockId lt:mode.1?long utime:mode.2?int = liteServer.BlockHeader */
  lookupBlock: 0xfac8f71e | 0,
  /** liteServer.blockHeader id:tonNode.blockIdExt mode:# header_proof:bytes = liteServer.BlockHeader */
  blockHeader: 0x752d8219,
  /** liteServer.getAccountState id:tonNode.blockIdExt account:liteServer.accountId = liteServer.AccountState */
  getAccountState: 0x6b890e25,
  /** liteServer.accountState id shardblk:tonNode.blockIdExt shard_proof:bytes proof:bytes state:bytes */
  accountState: 0x7079c751
} as const

export interface TlBlockIdExt {
  readonly workchain: number
  /** Signed 64-bit decimal. */
  readonly shard: string
  readonly seqno: number
  readonly rootHash: Buffer
  readonly fileHash: Buffer
}

export class TlWriter {
  private readonly parts: Array<Buffer> = []
  int32(v: number): this {
    const b = Buffer.alloc(4)
    b.writeInt32LE(v | 0)
    this.parts.push(b)
    return this
  }
  uint32(v: number): this {
    const b = Buffer.alloc(4)
    b.writeUInt32LE(v >>> 0)
    this.parts.push(b)
    return this
  }
  int64(v: bigint | string): this {
    const b = Buffer.alloc(8)
    b.writeBigInt64LE(BigInt.asIntN(64, BigInt(v)))
    this.parts.push(b)
    return this
  }
  int256(v: Buffer): this {
    if (v.length !== 32) throw new Error(`int256 needs 32 bytes, got ${v.length}`)
    this.parts.push(v)
    return this
  }
  /** TL bytes: one length byte below 254, else 0xfe and three length bytes; zero padding to a multiple of 4. */
  bytes(v: Buffer): this {
    const head =
      v.length < 254
        ? Buffer.from([v.length])
        : Buffer.from([254, v.length & 255, (v.length >> 8) & 255, (v.length >> 16) & 255])
    const pad = (4 - ((head.length + v.length) % 4)) % 4
    this.parts.push(head, v, Buffer.alloc(pad))
    return this
  }
  string(s: string): this {
    return this.bytes(Buffer.from(s, "utf8"))
  }
  blockIdExt(id: TlBlockIdExt): this {
    return this.int32(id.workchain).int64(id.shard).int32(id.seqno).int256(id.rootHash).int256(id.fileHash)
  }
  build(): Buffer {
    return Buffer.concat(this.parts)
  }
}

export class TlReader {
  private offset = 0
  constructor(private readonly buf: Buffer) {}
  private need(n: number): void {
    if (this.offset + n > this.buf.length)
      throw new Error(`TL input ends at ${this.buf.length}, needs ${this.offset + n}`)
  }
  get remaining(): number {
    return this.buf.length - this.offset
  }
  int32(): number {
    this.need(4)
    const v = this.buf.readInt32LE(this.offset)
    this.offset += 4
    return v
  }
  uint32(): number {
    this.need(4)
    const v = this.buf.readUInt32LE(this.offset)
    this.offset += 4
    return v
  }
  int64(): string {
    this.need(8)
    const v = this.buf.readBigInt64LE(this.offset)
    this.offset += 8
    return v.toString()
  }
  int256(): Buffer {
    this.need(32)
    const v = this.buf.subarray(this.offset, this.offset + 32)
    this.offset += 32
    return Buffer.from(v)
  }
  bytes(): Buffer {
    this.need(1)
    let len = this.buf[this.offset]!
    let head = 1
    if (len === 254) {
      this.need(4)
      len = this.buf[this.offset + 1]! | (this.buf[this.offset + 2]! << 8) | (this.buf[this.offset + 3]! << 16)
      head = 4
    }
    this.need(head + len)
    const v = Buffer.from(this.buf.subarray(this.offset + head, this.offset + head + len))
    this.offset += head + len + ((4 - ((head + len) % 4)) % 4)
    return v
  }
  blockId(): { workchain: number; shard: string; seqno: number } {
    return {
      workchain: this.int32(),
      shard: this.int64(),
      seqno: this.int32()
    }
  }
  blockIdExt(): TlBlockIdExt {
    return {
      workchain: this.int32(),
      shard: this.int64(),
      seqno: this.int32(),
      rootHash: this.int256(),
      fileHash: this.int256()
    }
  }
  rest(): Buffer {
    const v = this.buf.subarray(this.offset)
    this.offset = this.buf.length
    return Buffer.from(v)
  }
}
