/**
 * Decoding on every core: a scoped pool of worker threads (decodeWorker.ts) that turns raw bundles into encoded Kafka
 * records, so the main thread only fetches and sends. A bundle larger than `sliceTxs` is decoded in slices (on
 * several workers when there are) and finished (trace ids, encoding) here; so is a bundle of block files (the
 * liteserver source) of more than `sliceBytes`, in runs of blocks. Invariants: the result equals
 * `prepare(assembleBundle(raw, network, pipelineDecode))` byte for byte, for block files that of the raw bundle the
 * reader would have made of them (completeBlockFiles); a worker that dies fails every pending and
 * later request with DecodePoolError (never a hang), and closing the scope terminates every thread. */
import { Effect, Schema, type Scope } from "effect"
import { createHash } from "node:crypto"
import { existsSync } from "node:fs"
import path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Worker, type ResourceLimits } from "node:worker_threads"
import { DEFAULT_DECODE_YOUNG_MB } from "../config.js"
import { repoRoot } from "../infra/paths.js"
import { threadCpuSeconds } from "../ops/cpu.js"
import type { RawMasterchainBundle } from "../source/Upstream.js"
import { type BlockFile, type BlockFilesBundle, joinBlockFiles, movableBuffers } from "../source/liteserver/blockFiles.js"
import { deadBundle, finishBundle, prepare, type Decoded, type Prepared } from "./assemble.js"
import type { DecodeReply, DecodeRequest, ThreadHeap } from "./decodeWorker.js"
import { bundleDecodeWorker, WORKER_BUNDLE, writeBundle } from "./workerBundle.js"

export class DecodePoolError extends Schema.TaggedError<DecodePoolError>()("DecodePoolError", {
  reason: Schema.Literal("start", "crashed"),
  message: Schema.String
}) {}

export interface DecodePoolOptions {
  readonly workers: number
  readonly network: string
  /** A bundle with more transactions than this is decoded in slices of at most this size (default 2000). */
  readonly sliceTxs?: number
  /**
   * Block files of more bytes than this are read in runs of at most this size (a larger block alone), on several
   * workers (default 4 MiB: about as many transactions as `sliceTxs` in the recorded blocks).
   */
  readonly sliceBytes?: number
  /** Heap limits of each worker (default `workerLimits`); a worker that runs out of them dies. */
  readonly resourceLimits?: ResourceLimits
  /** Told the CPU seconds each request cost, by stage (the workers measure their own threads). */
  readonly onStageCpu?: (stage: "decode" | "record_encode", seconds: number) => void
  /** Told each worker's V8 heap (worker 0..workers-1) as it answers: the process's figures cover the main thread only. */
  readonly onHeap?: (worker: number, heap: ThreadHeap) => void
}

/**
 * A decode leaves much short-lived garbage; without limits V8 lets a worker's heap grow to ~200 MB before collecting.
 * The old generation's limit keeps a worker near 60-90 MB, far above what a slice of `sliceTxs` transactions holds
 * (~25 MB). The young generation (PRODUCER_DECODE_YOUNG_MB) is 16 MB (semi-spaces of 8 MB: V8 rounds a third up to
 * a power of two): at 8 MB a bundle's records outlived each scavenge and were copied and promoted, and the pool spent
 * ~25% more CPU per transaction; 48 MB cost 15-20 MB more of the producer's RSS for no measured CPU since
 * (BENCHMARKS.md, "Ingest: young generation of the decode worker" and "Ingest: what each pipeline process's memory
 * is made of").
 */
export const workerLimits: ResourceLimits = {
  maxOldGenerationSizeMb: 256,
  maxYoungGenerationSizeMb: DEFAULT_DECODE_YOUNG_MB
}

export interface DecodePool {
  readonly size: number
  /**
   * The bundle decoded and encoded by a worker (or sliced over several); block files are read there too, and one
   * that does not read gives the block's dead letter. Fails only when a worker died.
   */
  readonly prepare: (raw: RawMasterchainBundle | BlockFilesBundle) => Effect.Effect<Prepared, DecodePoolError>
}

export const isBlockFiles = (b: RawMasterchainBundle | BlockFilesBundle): b is BlockFilesBundle => "blocks" in b

/** Consecutive runs of block files of at most `bytes` each (a larger file alone), in order. */
const fileRuns = (files: ReadonlyArray<BlockFile>, bytes: number): Array<ReadonlyArray<BlockFile>> => {
  const out: Array<Array<BlockFile>> = []
  let size = Infinity
  for (const f of files) {
    if (size + f.data.byteLength > bytes) {
      out.push([])
      size = 0
    }
    out[out.length - 1]!.push(f)
    size += f.data.byteLength
  }
  return out
}

type Request = DecodeRequest extends infer R ? (R extends unknown ? Omit<R, "id"> : never) : never

/**
 * What a request's message moves instead of copying: the block files the reader made of their own (a structured
 * copy would write each file's bytes into the message and again into the worker's heap). A request is sent once,
 * and a bundle is decoded once per fetch (an attempt that fails fetches its blocks again), so nothing reads a moved
 * file's bytes on this thread afterwards.
 */
const transferOf = (r: Request): Array<ArrayBuffer> =>
  r.op === "files" ? movableBuffers(r.files.blocks) : r.op === "files-slice" ? movableBuffers(r.blocks) : []
type Reply = Exclude<DecodeReply, { readonly op: "ready" }>

interface Job {
  readonly request: Request
  readonly resolve: (reply: Reply) => void
  readonly reject: (error: DecodePoolError) => void
  cancelled: boolean
}

/**
 * The worker's script: the worker's modules bundled into one (workerBundle.ts). The runnables run compiled
 * JavaScript, where it is dist/src/producer/decodeWorker.bundle.js, written by `npm run build` (builtWorkerScript).
 * Only when run from TypeScript sources (tests, development through tsx) is it bundled once per process, written
 * under .cache/ where it resolves @ton/* from the project. A thread that registered tsx's loader instead costs about twice the memory
 * and several seconds to start.
 */
export const workerScript = (): Promise<URL> => (scriptMemo ??= findWorkerScript())
let scriptMemo: Promise<URL> | undefined

/**
 * The build's worker bundle under the project `root` (dist/src/producer/), where compiled code finds it wherever it
 * runs from (dist/src/producer/DecodePool.js, or a runnable's bundle in dist/pipelines/); a missing one is an error
 * that says to build.
 */
export const builtWorkerScript = (root: string): URL => {
  const file = path.join(root, "dist", "src", "producer", WORKER_BUNDLE)
  if (!existsSync(file)) throw new Error(`the decode worker's bundle ${file} is missing: run \`npm run build\``)
  return pathToFileURL(file)
}

const findWorkerScript = async (): Promise<URL> => {
  const self = import.meta.url
  if (!self.endsWith(".ts")) return builtWorkerScript(repoRoot)
  const code = await bundleDecodeWorker(fileURLToPath(new URL("./decodeWorker.ts", self)))
  const dir = fileURLToPath(new URL("../../.cache/decode-worker/", self))
  const file = path.join(dir, `decodeWorker-${createHash("sha256").update(code).digest("hex").slice(0, 16)}.mjs`)
  if (!existsSync(file)) writeBundle(file, code)
  return pathToFileURL(file)
}

class Threads {
  private readonly workers: Array<Worker> = []
  private readonly idle: Array<Worker> = []
  private readonly queue: Array<Job> = []
  private readonly running = new Map<Worker, Job>()
  private failure: DecodePoolError | undefined
  private closing = false
  private nextId = 0

  constructor(
    readonly size: number,
    script: URL,
    resourceLimits: ResourceLimits,
    onHeap: ((worker: number, heap: ThreadHeap) => void) | undefined
  ) {
    for (let i = 0; i < size; i++) {
      const w = new Worker(script, { resourceLimits })
      w.on("message", (m: DecodeReply) => {
        if (m.op !== "ready") {
          onHeap?.(i, m.heap)
          const job = this.running.get(w)
          this.running.delete(w)
          if (job !== undefined && !job.cancelled) job.resolve(m)
        }
        this.idle.push(w)
        this.pump()
      })
      w.on("error", (e) => this.fail(i, e instanceof Error ? `${e.name}: ${e.message}` : String(e)))
      w.on("exit", (code) => {
        if (!this.closing) this.fail(i, `exited with code ${code}`)
      })
      this.workers.push(w)
    }
  }

  /** Queues a request; the returned function withdraws it (a running one finishes, its answer is dropped). */
  submit(request: Request, resolve: Job["resolve"], reject: Job["reject"]): () => void {
    if (this.failure !== undefined) {
      reject(this.failure)
      return () => undefined
    }
    const job: Job = { request, resolve, reject, cancelled: false }
    this.queue.push(job)
    this.pump()
    return () => {
      job.cancelled = true
      const at = this.queue.indexOf(job)
      if (at >= 0) this.queue.splice(at, 1)
    }
  }

  private pump() {
    while (this.failure === undefined && this.idle.length > 0 && this.queue.length > 0) {
      const w = this.idle.shift()!
      const job = this.queue.shift()!
      this.running.set(w, job)
      w.postMessage({ ...job.request, id: this.nextId++ }, transferOf(job.request))
    }
  }

  private fail(index: number, cause: string) {
    if (this.failure !== undefined || this.closing) return
    this.failure = new DecodePoolError({
      reason: "crashed",
      message: `decode worker ${index + 1} of ${this.size} died: ${cause}`
    })
    const pending = [...this.running.values(), ...this.queue]
    this.running.clear()
    this.queue.length = 0
    for (const job of pending) if (!job.cancelled) job.reject(this.failure)
  }

  async close(): Promise<void> {
    this.closing = true
    await Promise.all(this.workers.map((w) => w.terminate()))
  }
}

/** Cut into `parts` runs of nearly equal length, in order. */
const slices = <A>(items: ReadonlyArray<A>, parts: number): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < parts; i++) {
    out.push(items.slice(Math.floor((i * items.length) / parts), Math.floor(((i + 1) * items.length) / parts)))
  }
  return out
}

export const makeDecodePool = (options: DecodePoolOptions): Effect.Effect<DecodePool, never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.tryPromise({
        try: workerScript,
        catch: (e) => new DecodePoolError({ reason: "start", message: `decode worker script: ${String(e)}` })
      }).pipe(
        Effect.map(
          (script) =>
            new Threads(Math.max(1, options.workers), script, options.resourceLimits ?? workerLimits, options.onHeap)
        ),
        Effect.orDie
      ),
      (threads) => Effect.promise(() => threads.close())
    ),
    (threads) => {
      const sliceTxs = Math.max(1, options.sliceTxs ?? 2000)
      const tell = (decode: number, encode: number) => {
        options.onStageCpu?.("decode", decode)
        options.onStageCpu?.("record_encode", encode)
      }
      const call = (request: Request) =>
        Effect.async<Reply, DecodePoolError>((resume) => {
          const withdraw = threads.submit(
            request,
            (reply) => resume(Effect.succeed(reply)),
            (error) => resume(Effect.fail(error))
          )
          return Effect.sync(withdraw)
        })

      const received = (reply: Reply): Prepared => {
        const { prepared, cpu } = reply as Extract<Reply, { op: "bundle" }>
        tell(cpu.decode, cpu.encode)
        const b = prepared.bundle
        if (b === null) return prepared
        // Transferred bytes arrive as a plain Uint8Array; a Buffer view over them costs no copy.
        const value = Buffer.from(b.value.buffer, b.value.byteOffset, b.value.byteLength)
        const d = prepared.drafts.bytes
        const drafts = { ...prepared.drafts, bytes: Buffer.from(d.buffer, d.byteOffset, d.byteLength) }
        return { ...prepared, bundle: { ...b, value }, drafts }
      }

      const whole = (raw: RawMasterchainBundle) =>
        Effect.map(call({ op: "bundle", raw, network: options.network }), received)

      const sliceBytes = Math.max(1, options.sliceBytes ?? 4 * 1024 * 1024)

      const files = (b: BlockFilesBundle) =>
        Effect.map(call({ op: "files", files: b, network: options.network }), (reply) => received(reply))

      const slicedFiles = (b: BlockFilesBundle) =>
        Effect.map(
          Effect.forEach(
            fileRuns(b.blocks, sliceBytes),
            (blocks) =>
              Effect.map(
                call({ op: "files-slice", blocks, mcSeqno: b.mc_seqno, states: b.states, network: options.network }),
                (reply) => {
                  const { read, cpu } = reply as Extract<Reply, { op: "files-slice" }>
                  tell(cpu.decode, 0)
                  return read
                }
              ),
            { concurrency: "unbounded" }
          ),
          (parts): Prepared => {
            const t = threadCpuSeconds()
            const failed = parts.find((p): p is string => typeof p === "string")
            const prepared =
              failed !== undefined
                ? deadBundle(options.network, b.mc_seqno, "upstream_malformed", failed)
                : finished(
                    joinBlockFiles(
                      b,
                      parts.map((p) => ({ ...(p as Exclude<typeof p, string>).blocks, transactions: [] }))
                    ),
                    parts.map((p) => (p as Exclude<typeof p, string>).decoded)
                  )
            tell(0, threadCpuSeconds() - t)
            return prepared
          }
        )

      /** The bundle from its raw fields and its decoded parts, finished and encoded on this thread. */
      const finished = (raw: RawMasterchainBundle, parts: ReadonlyArray<Decoded>): Prepared =>
        prepare(
          finishBundle(raw, options.network, {
            transactions: parts.flatMap((p) => p.transactions),
            deadLetters: parts.flatMap((p) => p.deadLetters)
          })
        )

      const sliced = (raw: RawMasterchainBundle) =>
        Effect.map(
          Effect.forEach(
            slices(raw.transactions, Math.ceil(raw.transactions.length / sliceTxs)),
            (txs) =>
              Effect.map(
                call({ op: "slice", txs, mcSeqno: raw.mc_seqno, network: options.network }),
                (reply) => {
                  const { decoded, cpu } = reply as Extract<Reply, { op: "slice" }>
                  tell(cpu.decode, 0)
                  return decoded
                }
              ),
            { concurrency: "unbounded" }
          ),
          (parts): Prepared => {
            const t = threadCpuSeconds()
            const prepared = finished(raw, parts)
            tell(0, threadCpuSeconds() - t)
            return prepared
          }
        )

      return {
        size: threads.size,
        // Slicing also bounds what one worker holds, so a huge bundle cannot outgrow a worker's heap limit.
        prepare: (raw) =>
          isBlockFiles(raw)
            ? raw.blocks.reduce((n, f) => n + f.data.byteLength, 0) > sliceBytes
              ? slicedFiles(raw)
              : files(raw)
            : raw.transactions.length > sliceTxs
              ? sliced(raw)
              : whole(raw)
      } satisfies DecodePool
    }
  )
