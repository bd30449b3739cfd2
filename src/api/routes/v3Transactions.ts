/**
 * toncenter v3 transactions of a masterchain block, under the specification's name
 * (masterchainBlockShardState) and toncenter's own (transactionsByMasterchainBlock).
 * Invariants: both paths run the same handler, so they answer byte-identical bodies; transactions of a done
 * block never change, but the address book follows the latest known code, so only answers without it are
 * marked immutable.
 */
import type { FastifyPluginAsync } from "fastify"
import { transactionsByMasterchainBlock, type Deps } from "../handlers.js"
import { ADDRESS_BOOK_CACHE, IMMUTABLE, sendText } from "../reply.js"
import type { QueryValue } from "../assemble/params.js"
import { noAddressBook } from "../assemble/v3.js"
import { intText, querySchema, v3Responses, v3TransactionsSchema } from "../schemas.js"

export const transactionsQuery = querySchema(
  {
    seqno: intText("Masterchain block seqno", "39984096"),
    limit: intText("Page size, 1..1000 (default 100; values below 1 count as 1)", "100"),
    offset: intText("Rows to skip (default 0)", "0"),
    sort: {
      type: "string",
      maxLength: 100,
      description: "asc | desc (default desc): by lt, then account",
      examples: ["desc"]
    },
    x_no_address_book: { type: "string", maxLength: 10, description: "Any non-empty value skips the address book" }
  },
  ["seqno"]
)

export const v3TransactionRoutes: FastifyPluginAsync<{ deps: Deps }> = async (app, { deps }) => {
  for (const path of ["/api/v3/masterchainBlockShardState", "/api/v3/transactionsByMasterchainBlock"]) {
    app.get(
      path,
      {
        schema: {
          summary: "Transactions of a masterchain block and of every shard block it commits",
          tags: ["v3"],
          querystring: transactionsQuery,
          response: v3Responses(v3TransactionsSchema)
        }
      },
      async (req, reply) => {
        const q = req.query as Readonly<Record<string, QueryValue>>
        const withAddressBook = !noAddressBook(req.headers["x-no-address-book"], q.x_no_address_book)
        const body = await transactionsByMasterchainBlock(deps, q, { withAddressBook })
        return sendText(reply, 200, body, withAddressBook ? ADDRESS_BOOK_CACHE : IMMUTABLE)
      }
    )
  }
}
