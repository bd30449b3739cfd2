/**
 * The chain generator end to end: emulate a base set of real transactions (cached), derive replicas of it in parallel
 * lanes until the requested count, open the stream with the real fixture blocks' transactions, arrange everything into
 * masterchain bundles with the account states toncenter v3 reports for the accounts each touches, and write them as
 * JSON lines under `.cache/gen/<key>/` with a manifest.
 * Invariant: the output is a function of the options alone (seed, counts, lanes, tx per block), never of the machine:
 * thread count only changes speed, and a finished directory (manifest written last) is reused as is.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, createReadStream } from "node:fs"
import os from "node:os"
import path from "node:path"
import { createInterface } from "node:readline"
import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"
import { Cell } from "@ton/core"
import { serializeBoc } from "../../src/ton/boc.js"
import { installFastCellHash } from "../../src/ton/fastHash.js"
import { Arranger } from "./arrange.js"
import { readHead } from "./derive.js"
import { repoRoot } from "../../src/infra/paths.js"
import { defaultFixturesDir, loadFixtureTxs } from "./fixtures.js"
import { Lane } from "./replica.js"
import type { LaneInit } from "./replica.js"
import type { GenBundle, GenTx, GenTxAfter } from "./types.js"
import type { WorkerRequest } from "./worker.js"
import { StateBook } from "./states.js"
import { runWorld } from "./world.js"

/** Bump when the generator's output for the same options changes; it is part of every cache key. */
export const GENERATOR_VERSION = 3
/** Bump when the emulated worlds change (script, contracts, emulator); it keys the cached base sets. */
export const WORLD_VERSION = 2

export interface GenerateOptions {
  readonly seed: string
  /** Total transactions in the output (real fixture ones included). */
  readonly txs: number
  /** Emulated transactions, split across `worlds`; replicas of them make up the rest. */
  readonly baseTxs?: number
  readonly worlds?: number
  /** Wallet users per world (default 400). */
  readonly users?: number
  readonly lanes?: number
  readonly txPerMc?: number
  readonly cacheDir?: string
  /** Shared fixtures directory; null leaves the real transactions out. */
  readonly fixturesDir?: string | null
  /** Use worker threads (false: everything in-process, e.g. under a test runner). */
  readonly threads?: boolean
  readonly onProgress?: (p: Progress) => void
}

export interface Progress {
  readonly phase: "base" | "derive"
  readonly done: number
  readonly total: number
  readonly elapsedMs: number
}

export interface ChunkInfo {
  readonly file: string
  readonly firstMc: number
  readonly lastMc: number
  readonly bundles: number
  readonly txs: number
}

export interface Manifest {
  readonly generatorVersion: number
  readonly seed: string
  readonly txs: number
  readonly baseTxs: number
  readonly worlds: number
  readonly lanes: number
  readonly txPerMc: number
  readonly fixtureTxs: number
  readonly replicas: number
  readonly mcFirst: number
  readonly mcLast: number
  readonly bundles: number
  readonly shardBlocks: number
  /** Account states over all bundles (one per existing account a masterchain block touches). */
  readonly accountStates: number
  readonly bocBytes: number
  readonly chunks: ReadonlyArray<ChunkInfo>
  /** Emulator actions of the base set, summed over worlds. */
  readonly actions: Readonly<Record<string, number>>
  readonly seconds: { readonly base: number; readonly derive: number; readonly baseCached: boolean }
}

const CHUNK_TXS = 25_000

export const defaultCacheDir = path.resolve(repoRoot, ".cache/gen")

export const outputKey = (o: Required<Pick<GenerateOptions, "seed" | "txs" | "baseTxs" | "worlds" | "lanes" | "txPerMc">> & { fixtures: boolean }) =>
  `s${o.seed}-n${o.txs}-b${o.baseTxs}-w${o.worlds}-l${o.lanes}-m${o.txPerMc}${o.fixtures ? "" : "-nofx"}-v${GENERATOR_VERSION}`

interface BaseWorld {
  readonly txs: ReadonlyArray<readonly [number, string]>
  readonly hubs: ReadonlyArray<string>
  readonly actions: Readonly<Record<string, number>>
  readonly rejected: number
}

/** tsx's ESM register API as a file URL (its "import" export), found from the package root so any runner works. */
const tsxEsmApi = (from: string): string =>
  pathToFileURL(path.join(path.dirname(createRequire(from).resolve("tsx/package.json")), "dist/esm/api/index.mjs")).href

type WithoutId<T> = T extends unknown ? Omit<T, "id"> : never

/** A tiny request/response wrapper over a worker thread. */
class WorkerClient {
  private readonly worker: Worker
  private nextId = 0
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>()

  constructor() {
    const self = import.meta.url
    const fromSource = self.endsWith(".ts")
    const entry = new URL(fromSource ? "./worker.ts" : "./worker.js", self)
    // Run from TypeScript sources (tsx), the thread must register the same loader first: hooks are per thread.
    this.worker = fromSource
      ? new Worker(
          `import(${JSON.stringify(tsxEsmApi(self))})` +
            `.then((m) => { m.register(); return import(${JSON.stringify(entry.href)}) })`,
          { eval: true }
        )
      : new Worker(entry)
    this.worker.on("message", (m: { id: number; result?: unknown; error?: string }) => {
      const p = this.pending.get(m.id)
      if (!p) return
      this.pending.delete(m.id)
      if (m.error !== undefined) p.reject(new Error(m.error))
      else p.resolve(m.result)
    })
    this.worker.on("error", (e) => {
      for (const p of this.pending.values()) p.reject(e)
      this.pending.clear()
    })
  }

  call<T>(req: WithoutId<WorkerRequest>): Promise<T> {
    const id = this.nextId++
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject })
      this.worker.postMessage({ ...req, id })
    })
  }

  terminate(): Promise<number> {
    return this.worker.terminate()
  }
}

const baseFile = (cacheDir: string, seed: string, world: number, perWorld: number, users: number | undefined) =>
  path.join(cacheDir, "base", `s${seed}-w${world}-n${perWorld}${users === undefined ? "" : `-u${users}`}-v${WORLD_VERSION}.json`)

const loadOrRunWorlds = async (
  o: { seed: string; perWorld: number; worlds: number; cacheDir: string; users: number | undefined },
  clients: ReadonlyArray<WorkerClient>
): Promise<{ worlds: Array<BaseWorld>; cached: boolean }> => {
  const files = Array.from({ length: o.worlds }, (_, w) => baseFile(o.cacheDir, o.seed, w, o.perWorld, o.users))
  if (files.every((f) => existsSync(f))) {
    return { worlds: files.map((f) => JSON.parse(readFileSync(f, "utf8")) as BaseWorld), cached: true }
  }
  mkdirSync(path.dirname(files[0]!), { recursive: true })
  const run = async (w: number): Promise<BaseWorld> => {
    const opts = { seed: o.seed, world: w, targetTxs: o.perWorld, ...(o.users === undefined ? {} : { users: o.users }) }
    const client = clients[w % Math.max(1, clients.length)]
    if (client) return client.call<BaseWorld>({ op: "world", opts })
    const r = await runWorld(opts)
    return {
      txs: r.txs.map((t) => [t.workchain, serializeBoc(t.cell).toString("base64")] as const),
      hubs: r.hubs,
      actions: r.actions,
      rejected: r.rejected
    }
  }
  const worlds = await Promise.all(Array.from({ length: o.worlds }, (_, w) => run(w)))
  worlds.forEach((w, i) => {
    const f = files[i]!
    writeFileSync(f + ".tmp", JSON.stringify(w))
    renameSync(f + ".tmp", f)
  })
  return { worlds, cached: false }
}

export const generate = async (options: GenerateOptions): Promise<{ dir: string; manifest: Manifest }> => {
  const seed = options.seed
  const worldsN = options.worlds ?? 2
  const lanes = options.lanes ?? 2
  const txPerMc = options.txPerMc ?? 100
  const baseTxs = options.baseTxs ?? Math.min(16_000, Math.max(worldsN * 200, options.txs))
  const cacheDir = options.cacheDir ?? defaultCacheDir
  const fixturesDir = options.fixturesDir === undefined ? defaultFixturesDir : options.fixturesDir
  const key =
    outputKey({ seed, txs: options.txs, baseTxs, worlds: worldsN, lanes, txPerMc, fixtures: fixturesDir !== null }) +
    (options.users === undefined ? "" : `-u${options.users}`)
  const dir = path.join(cacheDir, key)
  const manifestPath = path.join(dir, "manifest.json")
  if (existsSync(manifestPath)) return { dir, manifest: readManifest(dir) }

  installFastCellHash()
  const threads = options.threads ?? true
  const nThreads = threads ? Math.max(1, Math.min(Math.max(worldsN, lanes), os.availableParallelism())) : 0
  const clients = Array.from({ length: nThreads }, () => new WorkerClient())
  const progress = options.onProgress ?? (() => {})
  try {
    const t0 = Date.now()
    const perWorld = Math.ceil(baseTxs / worldsN)
    const { worlds, cached } = await loadOrRunWorlds({ seed, perWorld, worlds: worldsN, cacheDir, users: options.users }, clients)
    const baseSeconds = (Date.now() - t0) / 1000
    progress({ phase: "base", done: worlds.reduce((s, w) => s + w.txs.length, 0), total: baseTxs, elapsedMs: Date.now() - t0 })

    // Merge worlds into one lt-ordered base set; ties keep world order so the merge is deterministic.
    const merged = worlds
      .flatMap((w, wi) => w.txs.map(([wc, boc], i) => ({ wc, boc, wi, i, head: readHead(Cell.fromBase64(boc)) })))
      .sort((a, b) => (a.head.lt < b.head.lt ? -1 : a.head.lt > b.head.lt ? 1 : a.wi - b.wi || a.i - b.i))
    const base = merged.map((m) => [m.wc, m.boc] as const)
    const minLt = merged[0]!.head.lt
    const maxLt = merged.reduce((m, x) => (x.head.lt > m ? x.head.lt : m), minLt)
    const ltSpan = ((maxLt - minLt) / 1_000_000n + 2n) * 1_000_000n
    const minNow = merged.reduce((m, x) => Math.min(m, x.head.now), Infinity)
    const maxNow = merged.reduce((m, x) => Math.max(m, x.head.now), 0)
    const timeSpan = maxNow - minNow + 1
    const hubs = [...new Set(worlds.flatMap((w) => w.hubs))]
    const actions: Record<string, number> = {}
    for (const w of worlds) for (const [k, v] of Object.entries(w.actions)) actions[k] = (actions[k] ?? 0) + v

    const fixtureTxs = fixturesDir === null ? [] : loadFixtureTxs(fixturesDir).slice(0, options.txs)
    const generatedNeeded = options.txs - fixtureTxs.length
    const replicas = Math.ceil(generatedNeeded / base.length)

    const laneInit = (lane: number): LaneInit => ({
      seed,
      lane,
      lanes,
      base,
      hubs,
      ltSpan: ltSpan.toString(),
      timeSpan
    })
    // Lane l runs on worker l % threads; with fewer threads than lanes a worker would mix lanes, so fall back.
    const laneClients = clients.length >= lanes ? clients.slice(0, lanes) : []
    const localLanes = laneClients.length === 0 ? Array.from({ length: lanes }, (_, l) => new Lane(laneInit(l))) : []
    await Promise.all(laneClients.map((c, l) => c.call({ op: "lane", init: laneInit(l) })))
    const remainingFor = (k: number) => Math.min(base.length, generatedNeeded - k * base.length)
    const requestReplica = (k: number): Promise<Array<GenTx>> => {
      const limit = remainingFor(k)
      if (laneClients.length > 0) return laneClients[k % lanes]!.call<Array<GenTx>>({ op: "replica", k, limit })
      return Promise.resolve(localLanes[k % lanes]!.replica(k, limit))
    }

    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    const arranger = new Arranger({ seed, txPerMc })
    const stateBook = new StateBook(seed)
    // what each pushed transaction leaves its account in, until its bundle is written
    const afterByHash = new Map<string, GenTxAfter>()
    let accountStates = 0
    const push = (t: GenTx) => {
      if (t.after !== undefined) afterByHash.set(t.hash, t.after)
      arranger.push(t)
    }
    const chunks: Array<ChunkInfo> = []
    let lines: Array<string> = []
    let chunkTxs = 0
    let chunkFirst = -1
    let chunkLast = -1
    let bundles = 0
    let shardBlocks = 0
    let bocBytes = 0
    let mcFirst = -1
    const writeChunk = () => {
      if (lines.length === 0) return
      const file = `bundles-${String(chunks.length).padStart(5, "0")}.jsonl`
      writeFileSync(path.join(dir, file), lines.join("\n") + "\n")
      chunks.push({ file, firstMc: chunkFirst, lastMc: chunkLast, bundles: lines.length, txs: chunkTxs })
      lines = []
      chunkTxs = 0
      chunkFirst = -1
    }
    const drain = () => {
      for (const arranged of arranger.take()) {
        const b: GenBundle = { ...arranged, ...stateBook.forBundle(arranged, (h) => afterByHash.get(h)) }
        for (const t of b.transactions) afterByHash.delete(t.hash)
        accountStates += b.account_states.length
        if (mcFirst < 0) mcFirst = b.mc_seqno
        if (chunkFirst < 0) chunkFirst = b.mc_seqno
        chunkLast = b.mc_seqno
        lines.push(JSON.stringify(b))
        chunkTxs += b.transactions.length
        bundles += 1
        shardBlocks += b.shard_blocks.length
        for (const t of b.transactions) bocBytes += (t.boc.length * 3) / 4 - (t.boc.endsWith("==") ? 2 : t.boc.endsWith("=") ? 1 : 0)
        if (chunkTxs >= CHUNK_TXS) writeChunk()
      }
    }

    const t1 = Date.now()
    for (const t of fixtureTxs) push(t)
    drain()
    // Keep one replica in flight per lane ahead of the one being arranged.
    const inflight = new Map<number, Promise<Array<GenTx>>>()
    const ensure = (k: number) => {
      if (k < replicas && !inflight.has(k)) inflight.set(k, requestReplica(k))
    }
    let done = fixtureTxs.length
    for (let k = 0; k < replicas; k++) {
      for (let a = 0; a < lanes; a++) ensure(k + a)
      const txs = await inflight.get(k)!
      inflight.delete(k)
      for (const t of txs) push(t)
      drain()
      done += txs.length
      progress({ phase: "derive", done, total: options.txs, elapsedMs: Date.now() - t1 })
    }
    arranger.flush()
    drain()
    writeChunk()
    const deriveSeconds = (Date.now() - t1) / 1000

    const manifest: Manifest = {
      generatorVersion: GENERATOR_VERSION,
      seed,
      txs: done,
      baseTxs: base.length,
      worlds: worldsN,
      lanes,
      txPerMc,
      fixtureTxs: fixtureTxs.length,
      replicas,
      mcFirst,
      mcLast: chunkLast,
      bundles,
      shardBlocks,
      accountStates,
      bocBytes,
      chunks,
      actions,
      seconds: { base: baseSeconds, derive: deriveSeconds, baseCached: cached }
    }
    writeFileSync(manifestPath + ".tmp", JSON.stringify(manifest, null, 2))
    renameSync(manifestPath + ".tmp", manifestPath)
    return { dir, manifest }
  } finally {
    await Promise.all(clients.map((c) => c.terminate()))
  }
}

export const readManifest = (dir: string): Manifest =>
  JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8")) as Manifest

/** Bundles of a generated directory in masterchain order, one chunk file at a time. */
export async function* readBundles(dir: string): AsyncGenerator<GenBundle> {
  const manifest = readManifest(dir)
  for (const c of manifest.chunks) {
    const rl = createInterface({ input: createReadStream(path.join(dir, c.file)), crlfDelay: Infinity })
    for await (const line of rl) if (line.length > 0) yield JSON.parse(line) as GenBundle
  }
}
