// Loaded into the API runnable by bench/loneBreakdown.ts alone (`node --import <this file> <the file npm run api starts>`),
// never by the product: stamps each request's steps on CLOCK_MONOTONIC (process.hrtime, the same clock the bench's
// client reads in its own process) from outside the product's code. The HTTP server's `request` event (Node's parser
// done, before Fastify), each chdb statement (the binding's call, its return, the engine's answer handed to the main
// thread, the engine's own elapsed time; a synchronous statement's call and answer), the reply's `end` call and its return (the socket write), and `finish`.
// Plain JavaScript: the runnable is compiled JavaScript and must not load a TypeScript loader for this. The stamps
// go to the file named by LONE_STAMPS_FILE on SIGUSR2 (one JSON line per request).
import { createRequire } from "node:module"
import { writeFileSync } from "node:fs"
import http from "node:http"

const now = () => Number(process.hrtime.bigint()) / 1e6
const out = process.env.LONE_STAMPS_FILE
const done = []
let current = null

const emit = http.Server.prototype.emit
http.Server.prototype.emit = function (event, req, res) {
  if (event === "request") {
    const rec = { request: now(), url: req.url, statements: [] }
    current = rec
    const end = res.end
    res.end = function (...args) {
      rec.endCall = now()
      const r = end.apply(this, args)
      rec.endReturned = now()
      return r
    }
    res.on("finish", () => {
      rec.finish = now()
      done.push(rec)
      if (current === rec) current = null
    })
  }
  return emit.apply(this, arguments)
}

// the chdb module the runnable loads (resolved from its own checkout: the runnable's working directory)
const { Session } = createRequire(`${process.cwd()}/`)("chdb")
const queryAsync = Session.prototype.queryAsync
Session.prototype.queryAsync = function (sql, opts) {
  const s = { table: /FROM (\w+)/.exec(sql)?.[1] ?? "?", call: now() }
  current?.statements.push(s)
  const p = queryAsync.call(this, sql, opts)
  s.returned = now()
  p.then((r) => {
    s.answered = now()
    s.elapsed = r.elapsed * 1000
  }, () => {})
  return p
}

// the binding's synchronous call (a statement run on the main thread): call, answer, no hand-over
const query = Session.prototype.query
Session.prototype.query = function (sql, format) {
  const s = { table: /FROM (\w+)/.exec(sql)?.[1] ?? "?", call: now(), sync: true }
  current?.statements.push(s)
  const r = query.call(this, sql, format)
  s.returned = s.answered = now()
  return r
}

process.on("SIGUSR2", () => {
  if (out !== undefined) writeFileSync(out, done.map((r) => JSON.stringify(r)).join("\n") + "\n")
  done.length = 0
})
