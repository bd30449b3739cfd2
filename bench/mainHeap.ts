// What a heap snapshot of a Node thread is made of, by module: a snapshot written by bench/mainSnapshot.mjs (the
// producer's main thread) or bench/workerSnapshot.mjs summed up. Each script's source text goes to its package (or the
// project's own folder), and so does the compiled code of its functions (each function's shared info with its
// bytecode, scope infos, feedback metadata, and its closures with their feedback), found through the snapshot's
// edges; the rest is data, summed by the objects' constructors and by the largest strings.
// Usage: npx tsx bench/mainHeap.ts --file FILE [--top 25]. Numbers are printed, never asserted.
import { readFileSync } from "node:fs"
import { parseCli } from "../src/infra/cli.js"

const USAGE = "Usage: npx tsx bench/mainHeap.ts --file FILE [--top 25]"
const args = parseCli({ file: { type: "string" }, top: { type: "string", default: "25" } }, USAGE)
const file = args.file
if (file === undefined) {
  process.stderr.write(`${USAGE}\n`)
  process.exit(2)
}
const top = Number(args.top)
const snap = JSON.parse(readFileSync(file, "utf8")) as {
  snapshot: {
    meta: {
      node_fields: Array<string>
      node_types: [Array<string>]
      edge_fields: Array<string>
      edge_types: [Array<string>]
    }
  }
  nodes: Array<number>
  edges: Array<number>
  strings: Array<string>
}
const meta = snap.snapshot.meta
const W = meta.node_fields.length
const EW = meta.edge_fields.length
const [fType, fName, fSize, fEdges] = ["type", "name", "self_size", "edge_count"].map((f) =>
  meta.node_fields.indexOf(f)
) as [number, number, number, number]
const types = meta.node_types[0]
const edgeTypes = meta.edge_types[0]
const count = snap.nodes.length / W
const firstEdge = new Uint32Array(count + 1)
for (let j = 0, e = 0; j < count; j++) {
  firstEdge[j] = e
  e += snap.nodes[j * W + fEdges]!
  firstEdge[j + 1] = e
}
const type = (j: number) => types[snap.nodes[j * W + fType]!]!
const name = (j: number) => snap.strings[snap.nodes[j * W + fName]!]!
const size = (j: number) => snap.nodes[j * W + fSize]!
/** The node an edge named `edge` leads to from node j, or -1. */
const follow = (j: number, edge: string): number => {
  for (let e = firstEdge[j]!; e < firstEdge[j + 1]!; e++) {
    const t = edgeTypes[snap.edges[e * EW]!]!
    if (t !== "element" && t !== "hidden" && snap.strings[snap.edges[e * EW + 1]!] === edge)
      return snap.edges[e * EW + 2]! / W
  }
  return -1
}
const children = function* (j: number) {
  for (let e = firstEdge[j]!; e < firstEdge[j + 1]!; e++) {
    if (edgeTypes[snap.edges[e * EW]!] !== "weak") yield snap.edges[e * EW + 2]! / W
  }
}

/** A script's URL as its module group: a package, the project's folder, Node's own. */
const group = (url: string): string => {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (pkg !== null) return `package ${pkg[1]}`
  const own = /\/(dist\/)?(src\/[^/]+|pipelines|tools\/[^/]+|bench|scripts)\//.exec(url)
  if (own !== null) return `project ${own[2]}${url.includes(".bundle.") ? " (bundle)" : ""}`
  if (url.startsWith("node:") || !url.includes("/")) return "node internals"
  if (url.includes(".bundle.")) return `bundle ${url.slice(url.lastIndexOf("/") + 1)}`
  return `other ${url.slice(0, 60)}`
}

const owner = new Int32Array(count).fill(-1) // node -> group index
const groups: Array<string> = []
const groupIndex = new Map<string, number>()
const gi = (g: string) => {
  let i = groupIndex.get(g)
  if (i === undefined) groupIndex.set(g, (i = groups.push(g) - 1))
  return i
}
const source = new Map<number, number>()
const code = new Map<number, number>()
const add = (m: Map<number, number>, g: number, n: number) => m.set(g, (m.get(g) ?? 0) + n)

// scripts: a code node with a `source` string and a `name`
const scriptGroup = new Map<number, number>()
for (let j = 0; j < count; j++) {
  if (type(j) !== "code") continue
  const src = follow(j, "source")
  const nm = follow(j, "name")
  if (src < 0 || nm < 0 || !type(src).includes("string")) continue
  const g = gi(group(name(nm)))
  scriptGroup.set(j, g)
  owner[j] = g
  add(code, g, size(j))
  if (owner[src]! < 0) {
    owner[src] = g
    add(source, g, size(src))
  }
}
/** Claims node j and what it holds of code-like kinds (not other functions, scripts or data) for group g. */
const claim = (j: number, g: number, depth: number) => {
  if (owner[j]! >= 0) return
  const t = type(j)
  if (t !== "code" && t !== "array" && t !== "hidden" && t !== "object shape") return
  owner[j] = g
  add(code, g, size(j))
  if (depth === 0) return
  for (const c of children(j)) if (!scriptGroup.has(c) && follow(c, "script_or_debug_info") < 0) claim(c, g, depth - 1)
}
// functions: shared infos (their script) and closures (their shared info)
const sfiGroup = new Map<number, number>()
for (let j = 0; j < count; j++) {
  const s = follow(j, "script_or_debug_info")
  if (s < 0) continue
  const g = scriptGroup.get(s)
  if (g === undefined) continue
  sfiGroup.set(j, g)
}
for (const [j, g] of sfiGroup) claim(j, g, 3)
for (let j = 0; j < count; j++) {
  if (type(j) !== "closure") continue
  const g = sfiGroup.get(follow(j, "shared"))
  if (g === undefined) continue
  owner[j] = g
  add(code, g, size(j))
  const cell = follow(j, "feedback_cell")
  if (cell >= 0) claim(cell, g, 2)
}

const mb = (n: number) => (n / 1024 / 1024).toFixed(2)
let total = 0
let external = 0
for (let j = 0; j < count; j++) {
  if (type(j) === "native") external += size(j)
  else total += size(j)
}
let srcTotal = 0
let codeTotal = 0
for (const v of source.values()) srcTotal += v
for (const v of code.values()) codeTotal += v
process.stdout.write(
  `${file}: JS heap (live, without native) ${mb(total)} MB; native nodes (ArrayBuffer data etc.) ${mb(external)} MB\n` +
    `  modules: source text ${mb(srcTotal)} MB, code (scripts, functions, bytecode, scope infos, feedback, closures) ${mb(codeTotal)} MB; data and the rest ${mb(total - srcTotal - codeTotal)} MB\n` +
    `by module group (source + code MB):\n`
)
const rows = groups
  .map((g, i) => [g, source.get(i) ?? 0, code.get(i) ?? 0] as const)
  .sort((a, b) => b[1] + b[2] - a[1] - a[2])
for (const [g, s, c] of rows.slice(0, top))
  process.stdout.write(`  ${mb(s + c).padStart(6)} = ${mb(s).padStart(5)} + ${mb(c).padStart(5)}  ${g}\n`)
let restS = 0
let restC = 0
for (const [, s, c] of rows.slice(top)) {
  restS += s
  restC += c
}
process.stdout.write(
  `  ${mb(restS + restC).padStart(6)} = ${mb(restS).padStart(5)} + ${mb(restC).padStart(5)}  (${Math.max(0, rows.length - top)} more groups)\n`
)
// the rest: by type, and by type and name
const byType = new Map<string, number>()
const byName = new Map<string, { size: number; n: number }>()
for (let j = 0; j < count; j++) {
  if (owner[j]! >= 0 || type(j) === "native") continue
  const t = type(j)
  byType.set(t, (byType.get(t) ?? 0) + size(j))
  const nm = name(j)
  const k = t.includes("string")
    ? `${t}${size(j) >= 4096 ? ` >= 4 kB: ${nm.slice(0, 50).replace(/\s+/g, " ")}` : " < 4 kB"}`
    : `${t}: ${nm.slice(0, 60)}`
  const v = byName.get(k) ?? { size: 0, n: 0 }
  v.size += size(j)
  v.n++
  byName.set(k, v)
}
process.stdout.write("the rest by node type (MB):\n")
for (const [t, v] of [...byType].sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${mb(v).padStart(6)}  ${t}\n`)
process.stdout.write("the rest, largest by type and name:\n")
for (const [k, v] of [...byName].sort((a, b) => b[1].size - a[1].size).slice(0, top)) {
  process.stdout.write(`  ${mb(v.size).padStart(6)} MB ${String(v.n).padStart(6)}x ${k}\n`)
}
