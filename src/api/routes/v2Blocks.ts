/**
 * toncenter v2 block routes: GET getBlockTransactionsExt and shards, and POST jsonRPC for the same methods.
 * Invariant: REST and JSON-RPC run the same handler on the same parameter names, so a method answers the
 * same `result` whichever way it is called; JSON-RPC only adds `id` (as a string) and `jsonrpc`.
 */
import type { FastifyPluginAsync } from "fastify"
import { ApiError, apiErrorBody, invalid, statusOf } from "../errors.js"
import { blockTransactionsExt, shards, type Deps } from "../handlers.js"
import { IMMUTABLE, sendJson, sendText } from "../reply.js"
import type { QueryValue } from "../assemble/params.js"
import { jsonRpcEnvelope, jsonRpcId } from "../assemble/v2.js"
import { bodyDocs, type ExampleBlock } from "../openapi.js"
import {
  INT32,
  hashParam,
  jsonRpcBodyDoc,
  jsonRpcBodySchema,
  jsonRpcResponses,
  param,
  querySchema,
  seqnoParam,
  v2BlockTransactionsExtSchema,
  v2Responses,
  v2ShardsSchema
} from "../schemas.js"

type Query = Readonly<Record<string, QueryValue>>

interface Method {
  readonly params: ReadonlyArray<string>
  /** The `result` as JSON text. */
  readonly run: (deps: Deps, q: Query) => Promise<string>
}

// ton-http-api's envelopes around a serialized `result`, in its key order (ok, result, id, jsonrpc).
const restBody = (result: string): string => `{"ok":true,"result":${result}}`
const rpcBody = (result: string, id: string | null): string =>
  `{"ok":true,"result":${result}${id === null ? "" : `,"id":${JSON.stringify(id)}`},"jsonrpc":"2.0"}`

const BLOCK_TX_EXT_PARAMS = ["workchain", "shard", "seqno", "root_hash", "file_hash", "after_lt", "after_hash", "count"]

const methods: Readonly<Record<string, Method>> = {
  getBlockTransactionsExt: { params: BLOCK_TX_EXT_PARAMS, run: blockTransactionsExt },
  shards: { params: ["seqno"], run: shards }
}

export const blockTransactionsExtQuery = querySchema(
  {
    workchain: param("Block workchain (decimal integer, 32-bit signed)", { schema: INT32, example: "block_workchain" }),
    shard: param("Block shard as a signed 64-bit decimal integer, not 0 (the masterchain's is -9223372036854775808)", {
      schema: { type: "string", pattern: "^[+-]?[0-9]{1,19}$" },
      example: "block_shard"
    }),
    seqno: seqnoParam("Block seqno", "block_seqno"),
    root_hash: hashParam("Block root hash; checked against the stored block when file_hash is given too"),
    file_hash: hashParam("Block file hash; checked against the stored block when root_hash is given too"),
    after_lt: param("Exclusive cursor: lt of the last transaction seen (decimal integer, 0..2^63-1)", {
      schema: { type: "string", pattern: "^[+]?[0-9]{1,19}$" }
    }),
    after_hash: param(
      "Exclusive cursor: ACCOUNT id (not a transaction hash) of the last transaction seen: 32 bytes as hex, " +
        "base64 or url-safe base64, or the account's address (raw, or user-friendly with a valid checksum)",
      {
        schema: {
          type: "string",
          pattern: "^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=|[+-]?[0-9]{1,10}:[0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{48})$"
        }
      }
    ),
    count: param("Maximum number of transactions, 1..10000 (default 40)", {
      schema: { type: "integer", minimum: 1, maximum: 10000, default: 40 }
    })
  },
  ["workchain", "shard", "seqno"]
)

const rpcExample = (e: ExampleBlock | null) =>
  e === null ? undefined : { jsonrpc: "2.0", id: 1, method: "shards", params: { seqno: e.mc_seqno } }
bodyDocs.set(jsonRpcBodySchema, (e) => jsonRpcBodyDoc(rpcExample(e)))

export const v2BlockRoutes: FastifyPluginAsync<{ deps: Deps }> = async (app, { deps }) => {
  app.get(
    "/api/v2/getBlockTransactionsExt",
    {
      schema: {
        summary: "Transactions of a block with full data (ton-http-api compatible)",
        tags: ["v2"],
        querystring: blockTransactionsExtQuery,
        response: v2Responses(v2BlockTransactionsExtSchema)
      }
    },
    async (req, reply) =>
      sendText(reply, 200, restBody(await blockTransactionsExt(deps, req.query as Query)), IMMUTABLE)
  )

  app.get(
    "/api/v2/shards",
    {
      schema: {
        summary: "Shard blocks referenced by a masterchain block",
        tags: ["v2"],
        querystring: querySchema({ seqno: seqnoParam("Masterchain block seqno", "mc_seqno") }, ["seqno"]),
        response: v2Responses(v2ShardsSchema)
      }
    },
    async (req, reply) => sendText(reply, 200, restBody(await shards(deps, req.query as Query)), IMMUTABLE)
  )

  app.post(
    "/api/v2/jsonRPC",
    {
      schema: {
        summary: "JSON-RPC access to getBlockTransactionsExt and shards",
        tags: ["v2"],
        body: jsonRpcBodySchema,
        response: jsonRpcResponses()
      }
    },
    async (req, reply) => {
      const body = req.body as { readonly method: string; readonly params?: unknown; readonly id?: unknown }
      const id = jsonRpcId(body.id)
      const fail = (e: ApiError) => {
        const { status } = apiErrorBody("v2", e)
        return sendJson(reply, "v2", status, jsonRpcEnvelope({ ok: false, error: e.message, code: status }, id))
      }
      const method = Object.hasOwn(methods, body.method) ? methods[body.method] : undefined
      if (method === undefined) return fail(invalid("Unknown method"))
      const params = body.params ?? {}
      if (typeof params !== "object" || params === null || Array.isArray(params)) {
        return fail(invalid("params: must be an object"))
      }
      const unexpected = Object.keys(params).find((k) => !method.params.includes(k))
      if (unexpected !== undefined) return fail(invalid(`${body.method}: unexpected parameter '${unexpected}'`))
      try {
        return sendText(reply, 200, rpcBody(await method.run(deps, params as Query), id))
      } catch (e) {
        if (e instanceof ApiError && statusOf[e.reason] < 500) return fail(e)
        throw e
      }
    }
  )
}
