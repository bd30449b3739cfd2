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
import {
  limitParam,
  offsetParam,
  param,
  querySchema,
  seqnoParam,
  v3Responses,
  v3TransactionsSchema
} from "../schemas.js"

export const transactionsQuery = querySchema(
  {
    seqno: seqnoParam("Masterchain block seqno", "mc_seqno"),
    limit: limitParam(),
    offset: offsetParam(),
    sort: param("Order by lt, then account (default desc); a and d, in any letter case, are accepted too", {
      schema: {
        anyOf: [
          { type: "string", enum: ["asc", "desc"] },
          {
            type: "string",
            pattern: "^(?:[aA](?:[sS][cC])?|[dD](?:[eE][sS][cC])?)$"
          }
        ],
        default: "desc"
      }
    }),
    x_no_address_book: param("Any value but empty, 0 or false skips the address book (as the header does)", {
      schema: { type: "string", maxLength: 100 }
    })
  },
  ["seqno"]
)

const addressBookHeader = {
  type: "object",
  properties: {
    "x-no-address-book": param("Any value but empty, 0 or false skips the address book", { schema: { type: "string" } })
  }
}

export const v3TransactionRoutes: FastifyPluginAsync<{ deps: Deps }> = async (app, { deps }) => {
  for (const path of ["/api/v3/masterchainBlockShardState", "/api/v3/transactionsByMasterchainBlock"]) {
    app.get(
      path,
      {
        schema: {
          summary: "Transactions of a masterchain block and of every shard block it commits",
          tags: ["v3"],
          querystring: transactionsQuery,
          headers: addressBookHeader,
          response: v3Responses(v3TransactionsSchema)
        }
      },
      async (req, reply) => {
        const q = req.query as Readonly<Record<string, QueryValue>>
        const withAddressBook = !noAddressBook(req.headers["x-no-address-book"], q.x_no_address_book)
        const body = await transactionsByMasterchainBlock(deps, q, {
          withAddressBook
        })
        return sendText(reply, 200, body, withAddressBook ? ADDRESS_BOOK_CACHE : IMMUTABLE)
      }
    )
  }
}
