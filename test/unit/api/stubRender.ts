/**
 * Minimal renderers with toncenter's outer shapes, for API tests that are about routing, paging and errors
 * rather than transaction content (the golden tests use the decoder's real renderers).
 * Invariant: every transaction carries `account` and `transaction_id.lt`, which is what paging clients read.
 */
import type { Renderers } from "../../../src/api/render.js"
import { v2BlockIdExt } from "../../../src/api/render.js"

export const stubRender: Renderers = {
  v2BlockTransactionsExt: ({ id, req_count, incomplete, transactions, extra }) => ({
    "@type": "blocks.transactionsExt",
    id: v2BlockIdExt(id),
    req_count,
    incomplete,
    transactions: transactions.map((tx) => ({
      "@type": "raw.transaction",
      utime: tx.now,
      transaction_id: { "@type": "internal.transactionId", lt: tx.lt, hash: tx.hash },
      account: tx.account.toLowerCase()
    })),
    "@extra": extra
  }),
  v3Transaction: (tx, states) => ({
    account: tx.account,
    hash: tx.hash,
    lt: tx.lt,
    account_state_before: states.get(tx.account_state_hash_before) ?? { hash: tx.account_state_hash_before }
  }),
  addressBook: (txs, codeHashes, o) =>
    Object.fromEntries(
      txs.map((tx) => [tx.account, { user_friendly: `${o.testnet ? "t" : "m"}:${codeHashes.get(tx.account) ?? "none"}`, domain: null }])
    )
}
