// The consumer's main thread by owner, from the V8 CPU profile `bench/ingest.ts --cpu-prof DIR` writes: its busy
// samples (idle left out) from the first one inside the consumer's batch handler (start-up set apart), each given to
// the innermost of the parts below found on its stack (body decoding inside a page piece counts as body decoding,
// the clock inside the sink's timing as the clock), then self time by module or package. --ms-per-tx turns the
// shares into ms per transaction (the run's "consumer CPU by thread: main" figure). The profiler's own sampling
// costs CPU and the shares under load lean towards system calls: read them as shares, the bench's figures as sizes.
// Usage: npx tsx bench/consumerProfile.ts <profile file or --cpu-prof dir> [--ms-per-tx X] [--top 25]. Numbers are
// printed, never asserted.
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { parseArgs } from "node:util"

const USAGE = `Usage: npx tsx bench/consumerProfile.ts <profile file or --cpu-prof dir> [--ms-per-tx X] [--top 25]`
const { values: opts, positionals } = parseArgs({
  options: { "ms-per-tx": { type: "string" }, top: { type: "string", default: "25" } },
  allowPositionals: true
})
if (positionals.length !== 1) {
  console.error(USAGE)
  process.exit(2)
}

interface CallFrame {
  readonly functionName: string
  readonly url: string
}
interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: ReadonlyArray<number>
}
interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const BATCH_HANDLER = "eachBatch"
const isConsumer = (p: Profile) =>
  p.nodes.some((n) => n.callFrame.functionName === BATCH_HANDLER && n.callFrame.url.includes("consumer/BundleConsumer"))

const load = (path: string): Profile => {
  if (!statSync(path).isDirectory()) return JSON.parse(readFileSync(path, "utf8")) as Profile
  for (const f of readdirSync(path).filter((f) => f.endsWith(".cpuprofile"))) {
    const p = JSON.parse(readFileSync(join(path, f), "utf8")) as Profile
    if (isConsumer(p)) return p
  }
  throw new Error(`no consumer profile (one with ${BATCH_HANDLER}) in ${path}`)
}

const fn = (name: string, file: string) => (f: CallFrame) => f.functionName === name && f.url.includes(file)
const inModule = (part: string) => (f: CallFrame) => f.url.includes(part)

/** The parts, matched from a sample's leaf towards its root: the first frame that matches one names the part. */
const PARTS: ReadonlyArray<readonly [string, (f: CallFrame) => boolean]> = [
  ["thread CPU clock (stage figures)", fn("threadCpuSeconds", "ops/cpu")],
  ["flatten: body decoding", fn("decodeBodyBoc", "bodies/decode")],
  [
    "flatten: v2 piece (render + JSON)",
    (f) => fn("renderV2Transaction", "ton/v2")(f) || fn("pythonJson", "api/json")(f)
  ],
  ["flatten: v3 piece and the rest of txPageRow", fn("txPageRow", "store/pages")],
  ["flatten: v3_pages row", fn("v3PageRow", "flatten/v3_pages")],
  ["flatten: v2_pages rows", fn("v2PageRows", "flatten/v2_pages")],
  ["flatten: the other tables' rows", fn("flattenBundle", "flatten/bundle")],
  ["encode: row encoders", fn("add", "sink/encode")],
  ["encode: visits, dedup", fn("encodeRows", "sink/ClickHouseSink")],
  ["insert: the engine's calls", (f) => inModule("src/clickhouse/")(f) || inModule("node_modules/chdb")(f)],
  ["insert: account code rows", inModule("store/accountCodeKv")],
  ["consume: JSON.parse of records", fn("decodeBundle", "kafka/codec")],
  ["consume: zstd decompress", inModule("kafka/compression")],
  ["rest: value digest (sha256)", fn("valueDigest", "sink/tokens")],
  ["rest: kafkajs", inModule("node_modules/kafkajs")],
  [
    "rest: metrics scrapes (the bench's)",
    (f) => inModule("prom-client")(f) || inModule("ops/OpsServer")(f) || inModule("_http_")(f)
  ],
  ["rest: effect runtime", inModule("node_modules/effect")]
]

const owner = (f: CallFrame): string => {
  if (f.url === "") return f.functionName.startsWith("(") ? f.functionName : `(native) ${f.functionName}`
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f.url)
  if (pkg !== null) return `package ${pkg[1]}`
  const own = /\/(src|bench|tools|pipelines|dist)\/(.*)$/.exec(f.url)
  if (own !== null) return `${own[1]}/${own[2]!.replace(/\.(ts|js)$/, "")}`
  return f.url.startsWith("node:") ? `node ${f.url.slice(5)}` : f.url
}

const profile = load(positionals[0]!)
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const parent = new Map<number, number>()
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
const stack = function* (id: number): Generator<CallFrame> {
  for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) yield byId.get(x)!.callFrame
}

const parts = new Map<string, number>()
const selfTime = new Map<string, number>()
let busy = 0
let started = false
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i]!
  if (!started && ![...stack(id)].some((f) => f.functionName === BATCH_HANDLER)) continue
  started = true
  // a sample's time is the gap to the next one
  const dt = profile.timeDeltas[i + 1] ?? 0
  const leaf = byId.get(id)!.callFrame
  if (leaf.functionName === "(idle)") continue
  busy += dt
  let part: string | undefined =
    leaf.functionName === "(garbage collector)" ? "garbage collection (main thread)" : undefined
  for (const f of stack(id)) {
    if (part !== undefined) break
    for (const [name, matches] of PARTS) {
      if (matches(f)) {
        part = name
        break
      }
    }
  }
  part ??= "other"
  parts.set(part, (parts.get(part) ?? 0) + dt)
  selfTime.set(owner(leaf), (selfTime.get(owner(leaf)) ?? 0) + dt)
}

const scale = opts["ms-per-tx"] === undefined ? undefined : Number(opts["ms-per-tx"])
const line = (us: number, name: string) =>
  `  ${((100 * us) / busy).toFixed(1).padStart(5)}%` +
  (scale === undefined ? "" : `  ${((scale * us) / busy).toFixed(3)} ms/tx`) +
  `  ${name}`
console.log(`consumer main thread: ${(busy / 1e6).toFixed(1)} s of busy samples after the first batch`)
console.log("by part:")
for (const [name, us] of [...parts].sort((a, b) => b[1] - a[1])) console.log(line(us, name))
console.log("self time by module or package:")
for (const [name, us] of [...selfTime].sort((a, b) => b[1] - a[1]).slice(0, Number(opts.top)))
  console.log(line(us, name))
