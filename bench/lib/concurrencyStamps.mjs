// Loaded into the API runnable by a bench alone (`BENCH_API_NODE_ARGS="--import <this file>"`), never by the
// product: stamps every chdb statement of the API's read sessions (the binding's asynchronous call and the engine's
// answer handed back to the main thread, on CLOCK_MONOTONIC) and samples the main thread's event-loop utilization,
// so a load run shows how many statements the engine holds at once and how busy the main thread is.
// Every second (and on exit) it writes one JSON line to CONCURRENCY_STAMPS_FILE for the second just ended:
//   { t, elu, statements, inEngine: [ms with 0, 1, 2, ... statements in flight], byTable: { table: [n, wall ms,
//     engine ms] }, served, servedMs (their summed time in the server), inServer: [ms with 0, 1, ... requests in it] }
// Plain JavaScript: the runnable is compiled JavaScript.
import { createRequire } from "node:module"
import { appendFileSync } from "node:fs"
import { performance } from "node:perf_hooks"
import http from "node:http"

const now = () => Number(process.hrtime.bigint()) / 1e6
const out = process.env.CONCURRENCY_STAMPS_FILE

let inFlight = 0
let last = now()
let inEngine = []
let byTable = {}
let statements = 0
let elu = performance.eventLoopUtilization()

// time-weighted histogram of statements in flight
const step = (delta) => {
  const t = now()
  inEngine[inFlight] = (inEngine[inFlight] ?? 0) + (t - last)
  last = t
  inFlight += delta
}

// requests in the server (from Node's parsed request to the response's finish), time-weighted
let requests = 0
let reqLast = now()
let inServer = []
let served = 0
let servedMs = 0
const reqStep = (delta) => {
  const t = now()
  inServer[requests] = (inServer[requests] ?? 0) + (t - reqLast)
  reqLast = t
  requests += delta
}
const emit = http.Server.prototype.emit
http.Server.prototype.emit = function (event, req, res) {
  if (event === "request") {
    const start = now()
    reqStep(1)
    res.on("finish", () => {
      reqStep(-1)
      served++
      servedMs += now() - start
    })
  }
  return emit.apply(this, arguments)
}

const { Session } = createRequire(`${process.cwd()}/`)("chdb")
const queryAsync = Session.prototype.queryAsync
Session.prototype.queryAsync = function (sql, opts) {
  const table = /FROM (\w+)/.exec(sql)?.[1] ?? "?"
  const call = now()
  step(1)
  const p = queryAsync.call(this, sql, opts)
  const settle = (elapsed) => {
    step(-1)
    statements++
    const e = (byTable[table] ??= [0, 0, 0])
    e[0]++
    e[1] += now() - call
    e[2] += elapsed
  }
  p.then((r) => settle(r.elapsed * 1000), () => settle(0))
  return p
}

const flush = () => {
  if (out === undefined) return
  step(0)
  reqStep(0)
  const e = performance.eventLoopUtilization(elu)
  elu = performance.eventLoopUtilization()
  if (statements > 0) {
    appendFileSync(out, JSON.stringify({ t: now(), elu: e.utilization, statements, inEngine, byTable, served, servedMs, inServer }) + "\n")
  }
  inEngine = []
  inServer = []
  served = 0
  servedMs = 0
  byTable = {}
  statements = 0
}
setInterval(flush, 1000).unref()
process.on("exit", flush)
