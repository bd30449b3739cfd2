/**
 * toncenter v3 blocks of a masterchain block (masterchainBlockShards): the masterchain block itself and
 * every shard block it commits, as ton-index-go `Block` objects.
 * Invariant: order is (workchain, unsigned shard, seqno), stable across pages.
 */
import type { FastifyPluginAsync } from "fastify"
import { masterchainBlockShards, type Deps } from "../handlers.js"
import { IMMUTABLE, sendText } from "../reply.js"
import type { QueryValue } from "../assemble/params.js"
import { querySchema, v3BlocksSchema, v3Responses } from "../schemas.js"
import { limitParam, offsetParam, seqnoParam } from "../schemas.js"

export const v3BlockRoutes: FastifyPluginAsync<{ deps: Deps }> = async (app, { deps }) => {
  app.get(
    "/api/v3/masterchainBlockShards",
    {
      schema: {
        summary: "Blocks committed by a masterchain block",
        tags: ["v3"],
        querystring: querySchema(
          {
            seqno: seqnoParam("Masterchain block seqno", "mc_seqno"),
            limit: limitParam(),
            offset: offsetParam()
          },
          ["seqno"]
        ),
        response: v3Responses(v3BlocksSchema)
      }
    },
    async (req, reply) =>
      sendText(
        reply,
        200,
        await masterchainBlockShards(deps, req.query as Readonly<Record<string, QueryValue>>),
        IMMUTABLE
      )
  )
}
