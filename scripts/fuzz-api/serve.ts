/**
 * The API over the quick start's data for a schema-driven fuzzer: the bundled chain decoded into the in-memory store
 * the API tests use, served by the same app (routes, validation, error table, cache) on 127.0.0.1. Invariant: prints
 * exactly one line `listening <port>` once it accepts connections, then serves until SIGINT/SIGTERM.
 * Usage: tsx scripts/fuzz-api/serve.ts [port]   (0 or absent: a free port)
 */
import { buildApp } from "../../src/api/app.js"
import { bundledChainWorld } from "../../test/unit/api/bundledChain.js"

const port = Number(process.argv[2] ?? "0")
const { store } = bundledChainWorld()
const app = buildApp({
  store,
  config: { network: "mainnet", api: { keys: [], rateLimit: 0 } }
})
await app.listen({ host: "127.0.0.1", port })
const address = app.server.address()
console.log(`listening ${typeof address === "object" && address !== null ? address.port : port}`)
const stop = () => void app.close().then(() => process.exit(0))
process.once("SIGINT", stop)
process.once("SIGTERM", stop)
