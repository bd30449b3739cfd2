/**
 * The renderers the API needs from the TON domain, as one port: the decoder's v2/v3 renderers turn
 * canonical records into toncenter's JSON objects; the API only fetches, paginates and wraps them.
 * Invariant: the objects returned here are already in toncenter's key order and value typing.
 */
import type { AccountStateRecord, BlockIdExt, TransactionRecord } from "../ton/record.js"
import { renderV2BlockTransactionsExt } from "../ton/v2.js"
import { renderAddressBook, renderV3Transaction, type V3Shape } from "../ton/v3.js"

export interface V2BlockTransactionsExtInput {
  readonly id: BlockIdExt
  readonly req_count: number
  readonly incomplete: boolean
  readonly transactions: ReadonlyArray<TransactionRecord>
  readonly extra: string
}

export interface Renderers {
  readonly v2BlockTransactionsExt: (input: V2BlockTransactionsExtInput) => unknown
  readonly v3Transaction: (tx: TransactionRecord, statesByHash: ReadonlyMap<string, AccountStateRecord>) => unknown
  readonly addressBook: (
    txs: ReadonlyArray<TransactionRecord>,
    codeHashes: ReadonlyMap<string, string | null>,
    o: { readonly testnet: boolean }
  ) => Readonly<Record<string, unknown>>
}

/** The TON domain's renderers in one toncenter generation's v3 shape (v2 has one shape). */
export const renderersFor = (shape: V3Shape): Renderers => ({
  v2BlockTransactionsExt: renderV2BlockTransactionsExt,
  v3Transaction: (tx, states) => renderV3Transaction(tx, states, shape),
  addressBook: (txs, codeHashes, o) => renderAddressBook(txs, codeHashes, { ...o, shape })
})

/** The TON domain's renderers: what the running API uses (today's toncenter shape). */
export const tonRenderers: Renderers = renderersFor("current")
