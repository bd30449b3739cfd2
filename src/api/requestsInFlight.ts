/**
 * How many requests an HTTP server has in flight: counted from the moment Node's parser hands a request over (before
 * any listener added earlier, Fastify's included, sees it) until its response closes (sent, or its connection gone).
 * Lets the store tell a lone request (the count is 1: its own) from one among others.
 * Invariant: every counted request is uncounted exactly once, whether its answer was sent or its client went away.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http"

export const countRequests = (server: Server): (() => number) => {
  let inFlight = 0
  server.prependListener("request", (_req: IncomingMessage, res: ServerResponse) => {
    inFlight++
    res.once("close", () => inFlight--)
  })
  return () => inFlight
}
