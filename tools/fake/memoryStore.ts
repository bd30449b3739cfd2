/**
 * An in-memory TxStore over canonical records, for unit tests of the API: the same contract as the
 * ClickHouse store (done-marker visibility, (lt, account) and (account, lt) orders, exclusive cursor).
 * Invariant: only bundles added as done are visible, exactly like mc_blocks_done gates the real store.
 */
import type { AccountCursor, SortOrder, TxStore } from "../../src/store/TxStore.js"
import type {
  AccountStateRecord,
  BlockId,
  BlockIdExt,
  BlockRecord,
  TransactionRecord
} from "../../src/ton/record.js"

export interface MemoryBundle {
  readonly mc: BlockRecord
  readonly shardBlocks: ReadonlyArray<BlockRecord>
  readonly shardTops: ReadonlyArray<BlockIdExt>
  readonly transactions: ReadonlyArray<TransactionRecord>
  readonly accountStates?: ReadonlyArray<AccountStateRecord>
  readonly codeHashes?: Readonly<Record<string, string | null>>
}

const blockKey = (id: BlockId): string => `${id.workchain}:${BigInt(id.shard)}:${id.seqno}`
const accountId = (raw: string): string => raw.slice(raw.indexOf(":") + 1).toUpperCase()
const cmp = <T>(a: T, b: T): number => (a < b ? -1 : a > b ? 1 : 0)

export class MemoryTxStore implements TxStore {
  private readonly bundles = new Map<number, MemoryBundle>()
  private readonly blocks = new Map<string, BlockRecord>()
  private readonly states = new Map<string, AccountStateRecord>()
  private readonly code = new Map<string, string | null>()
  /** Every query, for tests that check how many round trips a request makes. */
  readonly calls: string[] = []

  constructor(bundles: ReadonlyArray<MemoryBundle> = []) {
    for (const b of bundles) this.add(b)
  }

  add(b: MemoryBundle): void {
    this.bundles.set(b.mc.id.seqno, b)
    for (const block of [b.mc, ...b.shardBlocks]) this.blocks.set(blockKey(block.id), block)
    for (const s of b.accountStates ?? []) this.states.set(s.hash, s)
    for (const [k, v] of Object.entries(b.codeHashes ?? {})) this.code.set(k, v)
  }

  async mcBlockDone(seqno: number): Promise<boolean> {
    this.calls.push("mcBlockDone")
    return this.bundles.has(seqno)
  }

  async lastDoneMcSeqno(): Promise<number | null> {
    this.calls.push("lastDoneMcSeqno")
    return this.bundles.size === 0 ? null : Math.max(...this.bundles.keys())
  }

  async transactionsByMcSeqno(
    seqno: number,
    o: { limit: number; offset: number; sort: SortOrder }
  ): Promise<TransactionRecord[]> {
    this.calls.push("transactionsByMcSeqno")
    const txs = [...(this.bundles.get(seqno)?.transactions ?? [])]
    const dir = o.sort === "asc" ? 1 : -1
    txs.sort((a, b) => dir * cmp(BigInt(a.lt), BigInt(b.lt)) || cmp(a.account, b.account))
    return txs.slice(o.offset, o.offset + o.limit)
  }

  async blockById(id: BlockId): Promise<BlockRecord | null> {
    this.calls.push("blockById")
    return this.blocks.get(blockKey(id)) ?? null
  }

  async blockTransactions(id: BlockId, after: AccountCursor | null, count: number): Promise<TransactionRecord[]> {
    this.calls.push("blockTransactions")
    const block = this.blocks.get(blockKey(id))
    if (block === undefined) return []
    const key = blockKey(id)
    const txs = (this.bundles.get(block.mc_block_seqno)?.transactions ?? [])
      .filter((tx) => blockKey(tx.block) === key)
      .sort((a, b) => cmp(accountId(a.account), accountId(b.account)) || cmp(BigInt(a.lt), BigInt(b.lt)))
    const from =
      after === null
        ? txs
        : txs.filter((tx) => {
            const acc = accountId(tx.account)
            return acc > after.account || (acc === after.account && BigInt(tx.lt) > BigInt(after.lt))
          })
    return from.slice(0, count)
  }

  async shardBlocksOfMc(seqno: number): Promise<BlockRecord[]> {
    this.calls.push("shardBlocksOfMc")
    return [...(this.bundles.get(seqno)?.shardBlocks ?? [])]
  }

  async shardTops(seqno: number): Promise<BlockIdExt[]> {
    this.calls.push("shardTops")
    return [...(this.bundles.get(seqno)?.shardTops ?? [])]
  }

  async accountStates(hashes: ReadonlyArray<string>): Promise<Map<string, AccountStateRecord>> {
    this.calls.push("accountStates")
    const out = new Map<string, AccountStateRecord>()
    for (const h of hashes) {
      const s = this.states.get(h)
      if (s !== undefined) out.set(h, s)
    }
    return out
  }

  async codeHashes(accounts: ReadonlyArray<string>): Promise<Map<string, string | null>> {
    this.calls.push("codeHashes")
    const out = new Map<string, string | null>()
    for (const a of accounts) if (this.code.has(a)) out.set(a, this.code.get(a)!)
    return out
  }
}
