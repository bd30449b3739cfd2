// How long the chdb binding's asynchronous call (`Session.queryAsync`, as the API's read sessions make it) holds the
// calling thread before it returns its promise, against the gap since the session's previous statement answered:
// none, or a pause of BENCH_PAUSES ms ("0,0.5,1,2,5,20") spent asleep (a timer) or busy on this thread. Over a copy of
// a store kept by `bench:ingest --store` (BENCH_STORE_DIR), one session with the API's settings, a lone v3 page's
// lines statement of BENCH_BLOCKS (60) blocks per pause. Prints per pause the held time's p50 and p90 and the
// statement's wall p50 from the call (the held time included), and this thread's CPU per statement outside its busy
// pauses (clock ticks of 10 ms over the whole set: whether the held time is work on this thread or a wait; a busy
// pause is taken off as its wall time, so one the scheduler cut short reads low); numbers are printed, never asserted.
import { Session } from "chdb"
import { loadavg } from "node:os"
import { sessionSetup } from "../src/store/readers.js"
import { readStat } from "./lib/proc.js"
import { benchStore } from "./lib/store.js"

const { dir, database, stamp } = benchStore()
const count = Number(process.env.BENCH_BLOCKS ?? 60)
const pauses = (process.env.BENCH_PAUSES ?? "0,0.5,1,2,5,20").split(",").map(Number)
const quantile = (xs: ReadonlyArray<number>, p: number): string =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!.toFixed(3)

const session = new Session(dir)
for (const statement of sessionSetup(database)) session.query(statement)
const linesSql = (n: number): string =>
  `SELECT mc_block_seqno, length(arraySlice(lines, 1, 40) AS page), arrayStringConcat(page, '\\n') FROM v3_pages
   WHERE mc_block_seqno IN [${n}] SETTINGS enable_analyzer = 0 FORMAT TabSeparatedRaw`
const busy = (ms: number): void => {
  const t = performance.now()
  while (performance.now() - t < ms);
}

let x = 12345
const block = (): number => {
  x = (x * 1103515245 + 12345) % 2 ** 31
  return stamp.first + (x % (stamp.last - stamp.first + 1))
}
console.log(`the binding's call against the gap before it, ${count} statements each, load ${loadavg()[0]!.toFixed(2)}`)
for (const pause of pauses) {
  for (const how of pause === 0 ? ["none"] : ["asleep", "busy"]) {
    const held: Array<number> = []
    const wall: Array<number> = []
    const cpu0 = readStat(`/proc/self/task/${process.pid}/stat`).cpu
    for (let i = 0; i < count; i++) {
      if (how === "asleep") await new Promise((r) => setTimeout(r, pause))
      else if (how === "busy") busy(pause)
      const t0 = performance.now()
      const answer = session.queryAsync(linesSql(block()), { format: "TabSeparatedRaw" })
      held.push(performance.now() - t0)
      ;(await answer).bytes()
      wall.push(performance.now() - t0)
    }
    const own =
      ((readStat(`/proc/self/task/${process.pid}/stat`).cpu - cpu0) * 1000) / count - (how === "busy" ? pause : 0)
    console.log(
      `  gap ${String(pause).padStart(4)} ms ${how.padEnd(6)}: call held p50 ${quantile(held, 0.5)} ms, ` +
        `p90 ${quantile(held, 0.9)} ms; statement wall p50 ${quantile(wall, 0.5)} ms; this thread ${own.toFixed(2)} ms CPU`
    )
  }
}
console.log(`load after ${loadavg()[0]!.toFixed(2)}`)
session.close()
