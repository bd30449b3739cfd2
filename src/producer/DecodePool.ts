/**
 * Decoding on every core: a scoped pool of worker threads (decodeWorker.ts) that turns raw bundles into encoded Kafka
 * records, so the main thread only fetches and sends. A bundle larger than `sliceTxs` is decoded in slices on several
 * workers and finished (trace ids, encoding) here. Invariants: the result equals `prepare(assembleBundle(raw, network,
 * pipelineDecode))` byte for byte; a worker that dies fails every pending and later request with DecodePoolError
 * (never a hang), and closing the scope terminates every thread.
 */
import { Effect, Schema, type Scope } from "effect"
import { createRequire } from "node:module"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { Worker, type ResourceLimits } from "node:worker_threads"
import type { RawMasterchainBundle } from "../source/Upstream.js"
import { finishBundle, prepare, type Decoded, type Prepared } from "./assemble.js"
import type { DecodeReply, DecodeRequest } from "./decodeWorker.js"

export class DecodePoolError extends Schema.TaggedError<DecodePoolError>()("DecodePoolError", {
  reason: Schema.Literal("crashed"),
  message: Schema.String
}) {}

export interface DecodePoolOptions {
  readonly workers: number
  readonly network: string
  /** A bundle with more transactions than this is split into slices of about this size (when there are 2+ workers). */
  readonly sliceTxs?: number
  readonly resourceLimits?: ResourceLimits
}

export interface DecodePool {
  readonly size: number
  /** The bundle decoded and encoded by a worker (or sliced over several); fails only when a worker died. */
  readonly prepare: (raw: RawMasterchainBundle) => Effect.Effect<Prepared, DecodePoolError>
}

type Request = DecodeRequest extends infer R ? (R extends unknown ? Omit<R, "id"> : never) : never
type Reply = Exclude<DecodeReply, { readonly op: "ready" }>

interface Job {
  readonly request: Request
  readonly resolve: (reply: Reply) => void
  readonly reject: (error: DecodePoolError) => void
  cancelled: boolean
}

/** tsx's ESM register API as a file URL, found from the package root so any runner (tsx, vitest) works. */
const tsxEsmApi = (): string =>
  pathToFileURL(
    path.join(path.dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist/esm/api/index.mjs")
  ).href

const startWorker = (resourceLimits: ResourceLimits | undefined): Worker => {
  const self = import.meta.url
  const fromSource = self.endsWith(".ts")
  const entry = new URL(fromSource ? "./decodeWorker.ts" : "./decodeWorker.js", self)
  const options = resourceLimits === undefined ? {} : { resourceLimits }
  // From TypeScript sources the thread registers the same loader first: module hooks are per thread.
  return fromSource
    ? new Worker(
        `import(${JSON.stringify(tsxEsmApi())})` +
          `.then((m) => { m.register(); return import(${JSON.stringify(entry.href)}) })`,
        { ...options, eval: true }
      )
    : new Worker(entry, options)
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
    resourceLimits: ResourceLimits | undefined
  ) {
    for (let i = 0; i < size; i++) {
      const w = startWorker(resourceLimits)
      w.on("message", (m: DecodeReply) => {
        if (m.op !== "ready") {
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
      w.postMessage({ ...job.request, id: this.nextId++ })
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
      Effect.sync(() => new Threads(Math.max(1, options.workers), options.resourceLimits)),
      (threads) => Effect.promise(() => threads.close())
    ),
    (threads) => {
      const sliceTxs = Math.max(1, options.sliceTxs ?? 2000)
      const call = (request: Request) =>
        Effect.async<Reply, DecodePoolError>((resume) => {
          const withdraw = threads.submit(
            request,
            (reply) => resume(Effect.succeed(reply)),
            (error) => resume(Effect.fail(error))
          )
          return Effect.sync(withdraw)
        })

      const whole = (raw: RawMasterchainBundle) =>
        Effect.map(call({ op: "bundle", raw, network: options.network }), (reply) => {
          const prepared = (reply as Extract<Reply, { op: "bundle" }>).prepared
          const b = prepared.bundle
          // Transferred bytes arrive as a plain Uint8Array; a Buffer view over them costs no copy.
          return b === null
            ? prepared
            : { ...prepared, bundle: { ...b, value: Buffer.from(b.value.buffer, b.value.byteOffset, b.value.byteLength) } }
        })

      const sliced = (raw: RawMasterchainBundle) =>
        Effect.map(
          Effect.forEach(
            slices(raw.transactions, Math.ceil(raw.transactions.length / sliceTxs)),
            (txs) =>
              Effect.map(
                call({ op: "slice", txs, mcSeqno: raw.mc_seqno, network: options.network }),
                (reply) => (reply as Extract<Reply, { op: "slice" }>).decoded
              ),
            { concurrency: "unbounded" }
          ),
          (parts): Prepared => {
            const decoded: Decoded = {
              transactions: parts.flatMap((p) => p.transactions),
              deadLetters: parts.flatMap((p) => p.deadLetters)
            }
            return prepare(finishBundle(raw, options.network, decoded))
          }
        )

      return {
        size: threads.size,
        prepare: (raw) => (threads.size > 1 && raw.transactions.length > sliceTxs ? sliced(raw) : whole(raw))
      } satisfies DecodePool
    }
  )
