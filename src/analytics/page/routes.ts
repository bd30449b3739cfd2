/**
 * Fastify plugin of the built-in overview page: `GET /overview` (the HTML document) and `GET /overview/data` (its
 * JSON, read from ClickHouse's analytics views). Invariant: the data route declares its query and response schemas,
 * and a ClickHouse failure is a 503 with a reason, never a page of zeros.
 */
import type { ClickHouseClient } from "@clickhouse/client"
import type { FastifyPluginAsync } from "fastify"
import { optionalInt } from "../../api/assemble/params.js"
import { param, v2ErrorSchema } from "../../api/schemas.js"
import { readOverview } from "../overview.js"
import { OVERVIEW_HTML } from "./html.js"

export interface OverviewPluginOptions {
  readonly client: ClickHouseClient
  /** Unix seconds; tests pin it. */
  readonly now?: () => number
}

const DEFAULT_DAYS = 30
const MAX_DAYS = 36500

const count = { type: "integer" } as const
const nullableCount = { type: ["integer", "null"] } as const
const decimal = { type: "string", pattern: "^[0-9]+$" } as const

const dataSchema = {
  type: "object",
  required: ["generated_at", "progress", "latest_blocks", "throughput", "hourly", "daily", "opcodes_daily"],
  properties: {
    generated_at: count,
    progress: {
      type: "object",
      properties: {
        done_blocks: count,
        first_mc_seqno: nullableCount,
        last_mc_seqno: nullableCount,
        last_gen_utime: nullableCount,
        lag_seconds: nullableCount,
        transactions: count,
        pending_blocks: count
      }
    },
    latest_blocks: {
      type: "array",
      items: {
        type: "object",
        properties: { mc_seqno: count, gen_utime: count, block_count: count, tx_count: count }
      }
    },
    throughput: { type: "array", items: { type: "object", properties: { minute: count, transactions: count } } },
    hourly: {
      type: "array",
      items: { type: "object", properties: { hour: count, transactions: count, active_accounts: count } }
    },
    daily: {
      type: "array",
      items: {
        type: "object",
        properties: {
          day: { type: "string" },
          transactions: count,
          successful: count,
          aborted: count,
          total_fees: decimal,
          active_accounts: count,
          messages_in: count,
          bounced_in: count,
          value_moved: decimal
        }
      }
    },
    opcodes_daily: {
      type: "array",
      items: {
        type: "object",
        properties: { day: { type: "string" }, name: { type: "string" }, messages: count, value: decimal }
      }
    }
  }
} as const

export const overviewRoutes: FastifyPluginAsync<OverviewPluginOptions> = async (app, { client, now }) => {
  const clock = now ?? (() => Math.floor(Date.now() / 1000))
  app.get("/overview", { schema: { hide: true } as Record<string, unknown> }, async (_req, reply) =>
    reply.type("text/html; charset=utf-8").header("cache-control", "no-store").send(OVERVIEW_HTML)
  )
  app.get(
    "/overview/data",
    {
      schema: {
        summary: "Ingestion progress and daily figures behind the overview page",
        tags: ["overview"],
        querystring: {
          type: "object",
          properties: {
            // parsed below: Ajv's integer coercion lets "Infinity" and "-1e400" through as numbers
            days: param("Days of daily figures, 1..36500 (default 30)", {
              schema: { type: "integer", minimum: 1, maximum: MAX_DAYS, default: DEFAULT_DAYS }
            })
          },
          additionalProperties: false
        },
        response: {
          200: dataSchema,
          400: v2ErrorSchema,
          401: v2ErrorSchema,
          405: v2ErrorSchema,
          422: v2ErrorSchema,
          429: v2ErrorSchema,
          503: { type: "object", properties: { error: { type: "string" } } }
        }
      }
    },
    async (req, reply) => {
      const query = req.query as { readonly days?: string }
      const days = optionalInt("days", query.days, 1n, BigInt(MAX_DAYS)) ?? DEFAULT_DAYS
      try {
        const data = await readOverview(client, {
          days,
          latestBlocks: 10,
          throughputMinutes: 60,
          now: clock()
        })
        return reply.header("cache-control", "no-store").send(data)
      } catch (e) {
        req.log.warn({ err: e }, "overview data unavailable")
        return reply
          .code(503)
          .header("cache-control", "no-store")
          .send({ error: `ClickHouse: ${(e as Error).message}` })
      }
    }
  )
}
