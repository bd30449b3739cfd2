/**
 * A local liteserver: ADNL over TCP on loopback answering the lite API queries a block reader needs
 * (getMasterchainInfo(Ext), getTime, getVersion, getBlock, getBlockHeader, lookupBlock by seqno) from the built block
 * files of a fake chain, with scripted faults and a head that can lag behind or advance over time.
 * Invariant: only blocks committed by a visible masterchain block exist for clients (others get liteServer.error
 * 651), and every block served is the file whose root and file hashes are its id.
 */
import { createHash } from "node:crypto"
import net from "node:net"
import type { AddressInfo } from "node:net"
import { beginCell, Cell, convertToMerkleProof } from "@ton/core"
import { serializeBoc } from "../../../src/ton/boc.js"
import { blockKey } from "../../../src/source/shard.js"
import type { BlockIdExt } from "../../../src/ton/record.js"
import type { ChainData } from "../ChainData.js"
import { type ChainSpec, resolveChain } from "../server.js"
import { type AdnlConnection, randomServerKey, serveAdnl, type ServerKey, serverKey } from "./adnl.js"
import { type LiteChain, withBlockFiles } from "./blocks.js"
import { type LiteFaultPlan, type LiteFaultRule, liteFaultFor } from "./faults.js"
import { TL, type TlBlockIdExt, TlReader, TlWriter } from "./tl.js"

export interface LiteRequestLogEntry {
  readonly at: number
  /** Lite API method without the `liteServer.` prefix, or "unknown". */
  readonly method: string
  readonly block: string | undefined
  readonly fault: LiteFaultRule["kind"] | undefined
  /** "ok" or the liteServer.error code sent. */
  readonly result: "ok" | number | "none"
}

export interface FakeLiteserverOptions {
  /** A chain (re-identified by its built block files) or one already built with `withBlockFiles`. */
  readonly chain: ChainSpec | LiteChain
  readonly port?: number
  /** 32-byte ed25519 seed of the server key (random when absent). */
  readonly keySeed?: Buffer
  readonly faults?: LiteFaultPlan
  /** Masterchain blocks visible at start (default all); `everyMs` reveals one more each interval. */
  readonly reveal?: { readonly initial?: number; readonly everyMs?: number }
  /** Masterchain blocks this server stays behind the revealed head (a lagging liteserver). */
  readonly lag?: number
  readonly latencyMs?: number
  /**
   * Account cells getAccountState answers with, by raw address ("wc:HEX"); any other account is answered as not
   * existing (empty state). No proofs are sent.
   */
  readonly accounts?: ReadonlyMap<string, Cell>
}

export interface FakeLiteserver {
  readonly host: string
  readonly port: number
  /** Base64 of the server's ed25519 public key. */
  readonly publicKey: string
  /** `host:port:base64-key`, the single-server form of LITESERVER_CONFIG. */
  readonly config: string
  /** The chain as served (built block ids); the expected truth for tests. */
  readonly chain: ChainData
  readonly requests: ReadonlyArray<LiteRequestLogEntry>
  /** The head clients see (revealed head minus lag). */
  readonly head: () => number
  readonly advance: (n?: number) => number
  readonly setFaults: (plan: LiteFaultPlan) => void
  readonly setLag: (blocks: number) => void
  readonly clearRequests: () => void
  /** Open client connections. */
  readonly connections: () => number
  readonly stop: () => Promise<void>
}

class LiteError {
  constructor(
    readonly code: number,
    readonly message: string
  ) {}
}

const NOT_IN_DB = 651

const methodNames = new Map<number, string>([
  [TL.getMasterchainInfo, "getMasterchainInfo"],
  [TL.getMasterchainInfoExt, "getMasterchainInfoExt"],
  [TL.getTime, "getTime"],
  [TL.getVersion, "getVersion"],
  [TL.getBlock, "getBlock"],
  [TL.getAccountState, "getAccountState"],
  [TL.getBlockHeader, "getBlockHeader"],
  [TL.lookupBlock, "lookupBlock"]
])

const toTl = (id: BlockIdExt): TlBlockIdExt => ({
  workchain: id.workchain,
  shard: id.shard,
  seqno: id.seqno,
  rootHash: Buffer.from(id.root_hash, "base64"),
  fileHash: Buffer.from(id.file_hash, "base64")
})

const pruned = (c: Cell): Cell =>
  beginCell()
    .storeUint(1, 8)
    .storeUint(1, 8)
    .storeBuffer(c.hash(), 32)
    .storeUint(c.depth(), 16)
    .endCell({ exotic: true })

/** A Merkle proof of the block keeping its header (BlockInfo) and pruning value flow, state update and extra. */
const headerProof = (file: Buffer): Buffer => {
  const root = Cell.fromBoc(file)[0]!
  const [info, flow, update, extra] = root.refs as [Cell, Cell, Cell, Cell]
  const s = root.beginParse()
  const kept = beginCell()
    .storeBits(s.loadBits(s.remainingBits))
    .storeRef(info)
    .storeRef(pruned(flow))
    .storeRef(pruned(update))
    .storeRef(pruned(extra))
    .endCell()
  return serializeBoc(convertToMerkleProof(kept))
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

const isLiteChain = (c: FakeLiteserverOptions["chain"]): c is LiteChain => "files" in c && "chain" in c

export const startFakeLiteserver = async (opts: FakeLiteserverOptions): Promise<FakeLiteserver> => {
  const lite = isLiteChain(opts.chain) ? opts.chain : withBlockFiles(resolveChain(opts.chain))
  const { chain, files } = lite
  const key: ServerKey = opts.keySeed !== undefined ? serverKey(opts.keySeed) : randomServerKey()
  let plan: LiteFaultPlan = opts.faults ?? []
  let lag = opts.lag ?? 0
  let revealed =
    opts.reveal?.initial !== undefined ? Math.min(chain.last, chain.first + opts.reveal.initial - 1) : chain.last
  const head = () => Math.max(chain.base, revealed - lag)
  const requests: Array<LiteRequestLogEntry> = []
  const counters = new Map<string, number>()
  const sockets = new Set<net.Socket>()

  const findBlock = (id: TlBlockIdExt): { id: BlockIdExt; file: Buffer } => {
    const k = blockKey(id)
    const b = chain.blocks.get(k)
    if (b === undefined || b.record.mc_block_seqno > head()) throw new LiteError(NOT_IN_DB, `block ${k} is not in db`)
    if (
      !id.rootHash.equals(Buffer.from(b.record.id.root_hash, "base64")) ||
      !id.fileHash.equals(Buffer.from(b.record.id.file_hash, "base64"))
    ) {
      throw new LiteError(NOT_IN_DB, `block ${k} with these hashes is not in db`)
    }
    return { id: b.record.id, file: files.get(k)! }
  }

  /** Another block's id and file, for the wrong_block fault. */
  const otherBlock = (id: TlBlockIdExt): { id: BlockIdExt; file: Buffer } => {
    const mc = chain.masterchain.get(chain.base)!.block.record.id
    const alt = id.seqno === mc.seqno && id.workchain === -1 ? chain.masterchain.get(chain.first)!.block.record.id : mc
    return { id: alt, file: files.get(blockKey(alt))! }
  }

  const masterchainInfo = (w: TlWriter) => {
    const last = chain.masterchain.get(head())!.block.record.id
    const init = chain.masterchain.get(chain.base)!.block.record.id
    w.blockIdExt(toTl(last))
    w.int256(createHash("sha256").update(`state|${last.root_hash}`).digest())
    w.int32(-1).int256(Buffer.from(init.root_hash, "base64")).int256(Buffer.from(init.file_hash, "base64"))
  }

  const answer = (fn: number, q: TlReader, fault: LiteFaultRule | undefined): { body: Buffer; block?: string } => {
    const w = new TlWriter()
    const now = Math.floor(Date.now() / 1000)
    switch (fn) {
      case TL.getMasterchainInfo:
        masterchainInfo(w.int32(TL.masterchainInfo))
        return { body: w.build() }
      case TL.getMasterchainInfoExt: {
        const mode = q.uint32()
        const last = chain.masterchain.get(head())!.block.record
        w.int32(TL.masterchainInfoExt)
          .uint32(mode)
          .int32(0x101)
          .int64(7n)
          .blockIdExt(toTl(last.id))
          .int32(last.gen_utime)
          .int32(now)
        w.int256(createHash("sha256").update(`state|${last.id.root_hash}`).digest())
        const init = chain.masterchain.get(chain.base)!.block.record.id
        w.int32(-1).int256(Buffer.from(init.root_hash, "base64")).int256(Buffer.from(init.file_hash, "base64"))
        return { body: w.build() }
      }
      case TL.getTime:
        return { body: w.int32(TL.currentTime).int32(now).build() }
      case TL.getVersion:
        return {
          body: w.int32(TL.version).uint32(0).int32(0x101).int64(7n).int32(now).build()
        }
      case TL.getBlock: {
        const id = q.blockIdExt()
        const b = fault?.kind === "wrong_block" ? otherBlock(id) : findBlock(id)
        return {
          body: w.int32(TL.blockData).blockIdExt(toTl(b.id)).bytes(b.file).build(),
          block: blockKey(id)
        }
      }
      case TL.getBlockHeader: {
        const id = q.blockIdExt()
        const mode = q.uint32()
        const b = fault?.kind === "wrong_block" ? otherBlock(id) : findBlock(id)
        return {
          body: w.int32(TL.blockHeader).blockIdExt(toTl(b.id)).uint32(mode).bytes(headerProof(b.file)).build(),
          block: blockKey(id)
        }
      }
      case TL.lookupBlock: {
        const mode = q.uint32()
        const id = q.blockId()
        if ((mode & 1) === 0) throw new LiteError(400, "only lookup by seqno is supported")
        const b = chain.blocks.get(blockKey(id))
        if (b === undefined || b.record.mc_block_seqno > head())
          throw new LiteError(NOT_IN_DB, `block ${blockKey(id)} is not in db`)
        const file = files.get(blockKey(id))!
        return {
          body: w.int32(TL.blockHeader).blockIdExt(toTl(b.record.id)).uint32(0).bytes(headerProof(file)).build(),
          block: blockKey(id)
        }
      }
      case TL.getAccountState: {
        const id = q.blockIdExt()
        const workchain = q.int32()
        const account = `${workchain}:${q.int256().toString("hex").toUpperCase()}`
        if (id.workchain !== -1) throw new LiteError(400, "account states are asked at a masterchain block")
        const b = findBlock(id)
        const cell = opts.accounts?.get(account)
        return {
          body: w
            .int32(TL.accountState)
            .blockIdExt(toTl(b.id))
            .blockIdExt(toTl(b.id))
            .bytes(Buffer.alloc(0))
            .bytes(Buffer.alloc(0))
            .bytes(cell === undefined ? Buffer.alloc(0) : serializeBoc(cell))
            .build(),
          block: blockKey(id)
        }
      }
      default:
        throw new LiteError(400, `unsupported query 0x${(fn >>> 0).toString(16)}`)
    }
  }

  const handleQuery = async (queryId: Buffer, query: Buffer, conn: AdnlConnection): Promise<void> => {
    const at = performance.now()
    let method = "unknown"
    let fault: LiteFaultRule | undefined
    let result: LiteRequestLogEntry["result"] = "ok"
    let block: string | undefined
    const reply = (body: Buffer) => {
      conn.send(new TlWriter().int32(TL.adnlMessageAnswer).int256(queryId).bytes(body).build())
    }
    try {
      const outer = new TlReader(query)
      if (outer.int32() !== TL.liteServerQuery) throw new LiteError(400, "not a liteServer.query")
      const q = new TlReader(outer.bytes())
      let fn = q.int32()
      while (fn === TL.waitMasterchainSeqno) {
        const seqno = q.int32()
        q.int32() // timeout_ms
        if (seqno > head()) throw new LiteError(652, `masterchain block ${seqno} is not yet known`)
        fn = q.int32()
      }
      method = methodNames.get(fn) ?? "unknown"
      const n = (counters.get(method) ?? 0) + 1
      counters.set(method, n)
      fault = liteFaultFor(plan, method, n)
      if (opts.latencyMs) await sleep(opts.latencyMs)
      if (fault?.kind === "timeout") {
        result = "none"
        return
      }
      if (fault?.kind === "drop") {
        result = "none"
        conn.destroy()
        return
      }
      if (fault?.kind === "error") throw new LiteError(fault.code ?? NOT_IN_DB, "scripted failure")
      if (fault?.kind === "slow") await sleep(fault.delayMs ?? 1000)
      const a = answer(fn, q, fault)
      block = a.block
      reply(a.body)
    } catch (e) {
      const err = e instanceof LiteError ? e : new LiteError(400, e instanceof Error ? e.message : String(e))
      result = err.code
      reply(new TlWriter().int32(TL.error).int32(err.code).string(err.message).build())
    } finally {
      requests.push({ at, method, block, fault: fault?.kind, result })
    }
  }

  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
    socket.setNoDelay(true)
    serveAdnl(socket, key, (payload, conn) => {
      const r = new TlReader(payload)
      // only queries expect answers; anything else a client may send (pings, custom messages) is ignored
      if (r.int32() !== TL.adnlMessageQuery) return
      const queryId = r.int256()
      void handleQuery(queryId, r.bytes(), conn)
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  const timer =
    opts.reveal?.everyMs !== undefined
      ? setInterval(() => {
          if (revealed < chain.last) revealed += 1
        }, opts.reveal.everyMs)
      : undefined
  const publicKey = key.publicKey.toString("base64")
  return {
    host: "127.0.0.1",
    port,
    publicKey,
    config: `127.0.0.1:${port}:${publicKey}`,
    chain,
    requests,
    head,
    advance: (n = 1) => {
      revealed = Math.min(chain.last, revealed + n)
      return head()
    },
    setFaults: (p) => {
      plan = p
      counters.clear()
    },
    setLag: (b) => {
      lag = b
    },
    clearRequests: () => {
      requests.length = 0
    },
    connections: () => sockets.size,
    stop: async () => {
      if (timer) clearInterval(timer)
      for (const s of sockets) s.destroy()
      await new Promise<void>((r) => server.close(() => r()))
    }
  }
}
