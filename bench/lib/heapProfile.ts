// V8's sampling heap profiler on this thread (through the inspector), for the benches: what a piece of work allocates
// on the JS heap, by site. Objects freed by the young and the old collector are kept in the profile, so it counts
// every allocation (the garbage included), not only what is live when it stops. Bytes outside the heap (ArrayBuffers'
// backing stores) are not counted. Numbers are printed, never asserted.
import { Session } from "node:inspector"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
  readonly columnNumber: number
}

interface ProfileNode {
  readonly callFrame: CallFrame
  readonly selfSize: number
  readonly children: ReadonlyArray<ProfileNode>
}

export interface HeapProfile {
  readonly head: ProfileNode
}

const post = <A>(session: Session, method: string, params?: object): Promise<A> =>
  new Promise((resolve, reject) =>
    session.post(method, params ?? {}, (err, res) => (err === null ? resolve(res as A) : reject(err)))
  )

/** Starts sampling every `interval` bytes (on average); `stop` returns the profile. */
export const startHeapSampling = async (interval: number): Promise<{ readonly stop: () => Promise<HeapProfile> }> => {
  const session = new Session()
  session.connect()
  await post(session, "HeapProfiler.enable")
  await post(session, "HeapProfiler.startSampling", {
    samplingInterval: interval,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true
  })
  return {
    stop: async () => {
      const { profile } = await post<{ profile: HeapProfile }>(session, "HeapProfiler.stopSampling")
      await post(session, "HeapProfiler.disable")
      session.disconnect()
      return profile
    }
  }
}

const shortUrl = (url: string): string => {
  const nm = url.lastIndexOf("node_modules/")
  if (nm >= 0) return url.slice(nm + "node_modules/".length)
  const src = url.search(/\/(src|bench|test)\//)
  return src >= 0 ? url.slice(src + 1) : url === "" ? "(V8/native)" : url
}

/** The part of the worker's work a module belongs to. */
const area = (url: string): string => {
  // the sources (tsx) and the compiled files (node on tsc's output) alike
  const u = shortUrl(url).replace(/\.js$/, ".ts")
  if (u.startsWith("@ton/core/")) return "@ton/core (cells, slices, BOC reader)"
  if (u.startsWith("src/ton/bodies/")) return "body decoding (src/ton/bodies)"
  if (u.startsWith("src/ton/fast/")) return "fast decode (src/ton/fast)"
  if (u === "src/ton/v3Text.ts" || u === "src/kafka/transactions.ts" || u === "src/ton/text.ts" || u === "src/api/json.ts")
    return "drafts' text (v3Text, transactions, text, api/json)"
  if (u === "src/ton/fastHash.ts" || u === "src/ton/boc.ts") return "@ton/core patches, BOC writer (fastHash, boc)"
  if (u === "src/kafka/codec.ts") return "bundle record (kafka/codec)"
  if (u.startsWith("src/producer/") || u.startsWith("src/trace/")) return "assembly, trace ids (producer, trace)"
  if (u.startsWith("src/")) return `other project (${u})`
  if (u.startsWith("effect/")) return "effect"
  if (u.startsWith("node:") || u === "(V8/native)") return u === "(V8/native)" ? "V8 built-ins (JSON, Buffer, strings)" : "node built-ins"
  return u
}

/**
 * The profile as tables, in bytes per transaction: self by function (with its module and line), self by area, and
 * inclusive under the innermost of the named stage functions.
 */
export const summarizeHeapProfile = (profile: HeapProfile, txs: number, top = 40): string => {
  const byFn = new Map<string, number>()
  const byArea = new Map<string, number>()
  const byStage = new Map<string, number>()
  const stages = new Set([
    "assembleBlockFiles",
    "decodeBlockFiles",
    "finishBundle",
    "assignTraceIds",
    "encodeBundle",
    "draftTransactions",
    "v3TransactionPieces",
    "decodedBodyText",
    "decodeBodyBoc",
    "postMessage"
  ])
  let total = 0
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v)
  const walk = (n: ProfileNode, stage: string, callerOf: string) => {
    const f = n.callFrame
    const name = f.functionName === "" ? "(anonymous)" : f.functionName
    const here = stages.has(name) ? name : stage
    if (n.selfSize > 0) {
      total += n.selfSize
      // V8's built-ins carry no url: name them with their JS caller
      const site = f.url === "" ? `${name} <- ${callerOf}` : `${name} ${shortUrl(f.url)}:${f.lineNumber + 1}`
      add(byFn, site, n.selfSize)
      add(byArea, f.url === "" ? `${area("")}` : area(f.url), n.selfSize)
      add(byStage, here, n.selfSize)
    }
    const caller = f.url === "" ? callerOf : `${name} ${shortUrl(f.url)}:${f.lineNumber + 1}`
    for (const c of n.children) walk(c, here, caller)
  }
  walk(profile.head, "(outside the stages)", "(root)")
  const kb = (b: number) => (b / txs / 1024).toFixed(2)
  const table = (title: string, m: Map<string, number>, n: number) =>
    [
      `${title}`,
      ...[...m.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(([k, v]) => `  ${kb(v).padStart(7)} kB/tx ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`)
    ].join("\n")
  return [
    `allocated (sampled) ${kb(total)} kB/tx over ${txs} transactions`,
    table("by area (self):", byArea, 30),
    table("by stage (inclusive, innermost stage function):", byStage, 30),
    table(`by function (self, top ${top}):`, byFn, top),
    ""
  ].join("\n")
}
