// The calling thread's CPU clock the stage metrics use: it never goes back, and it advances when the thread works
// (10 ms ticks on Linux, so the work below runs until the clock has moved rather than for a fixed time). The stat
// file is opened once per thread and read again at offset 0: each read must give the figures of that moment, of the
// thread that asks.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import { processCpuSeconds, statTicks, threadCpuSeconds } from "../../../src/ops/cpu.js"

const spin = (untilMoved: () => number): number => {
  const t0 = untilMoved()
  let last = t0
  let x = 0
  for (let round = 0; round < 10_000 && last === t0; round++) {
    for (let i = 0; i < 100_000; i++) x = (x * 31 + i) % 1_000_003
    const t = untilMoved()
    expect(t).toBeGreaterThanOrEqual(last)
    last = t
  }
  expect(x).toBeGreaterThanOrEqual(0)
  return last - t0
}

/** utime + stime of this thread read as the file's own fields, in seconds (the reference for the byte parser). */
const statFileSeconds = (): number => {
  const stat = readFileSync("/proc/thread-self/stat", "latin1")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) / 100
}

describe("threadCpuSeconds", () => {
  it("is monotonic and advances with the thread's own work, never past the process's", () => {
    const p0 = processCpuSeconds()
    const moved = spin(threadCpuSeconds)
    expect(moved).toBeGreaterThan(0)
    // The thread's clock counts in 10 ms ticks; the process's (every thread) in microseconds.
    expect(moved).toBeLessThanOrEqual(processCpuSeconds() - p0 + 0.02)
  })

  it.runIf(process.platform === "linux")("reads the figures of the moment, as the stat file holds them", () => {
    for (let k = 0; k < 3; k++) {
      spin(threadCpuSeconds)
      const before = statFileSeconds()
      const now = threadCpuSeconds()
      const after = statFileSeconds()
      expect(now).toBeGreaterThanOrEqual(before)
      expect(now).toBeLessThanOrEqual(after)
    }
  })

  it.runIf(process.platform === "linux")("in a worker thread, counts that thread's work and not the main thread's", async () => {
    // The module as the worker loads it (it imports node:fs alone, so its own file compiled is all it needs).
    const dir = mkdtempSync(join(tmpdir(), "cpu-clock-"))
    const file = join(dir, "cpu.mjs")
    const source = readFileSync(new URL("../../../src/ops/cpu.ts", import.meta.url), "utf8")
    writeFileSync(
      file,
      ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText
    )
    const url = pathToFileURL(file).href
    // The worker reads its clock, waits while the main thread works, then reads it again.
    const worker = new Worker(
      `const { parentPort } = require("node:worker_threads")
       import(${JSON.stringify(url)}).then(({ threadCpuSeconds }) => {
         parentPort.postMessage(threadCpuSeconds())
         parentPort.once("message", () => parentPort.postMessage(threadCpuSeconds()))
       })`,
      { eval: true }
    )
    try {
      const next = () => new Promise<number>((resolve, reject) => {
        worker.once("message", resolve)
        worker.once("error", reject)
      })
      const first = await next()
      const main = spin(threadCpuSeconds)
      for (let i = 0; i < 5; i++) spin(threadCpuSeconds)
      worker.postMessage("again")
      const second = await next()
      expect(main).toBeGreaterThan(0)
      // five more ticks at least went to the main thread; the idle worker moved by a tick or two at most
      expect(second - first).toBeLessThan(0.05)
    } finally {
      await worker.terminate()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("statTicks", () => {
  const line = (comm: string, utime: number, stime: number): Buffer =>
    Buffer.from(
      `4242 (${comm}) S 1 4242 4242 0 -1 4194560 1234 0 0 0 ${utime} ${stime} 0 0 20 0 11 0 777 12345678 9999 ` +
        "18446744073709551615 1 1 0 0 0 0 0 16781312 17642 0 0 0 17 1 0 0 0 0 0\n",
      "latin1"
    )

  it("sums utime and stime after a command name that holds spaces and parentheses", () => {
    for (const comm of ["node", "node main", "a) b (c", ")", "ThreadPool"]) {
      const b = line(comm, 1234567, 89)
      expect(statTicks(b, b.length)).toBe(1234567 + 89)
    }
  })

  it("reads only the bytes it is given and refuses a line without the fields", () => {
    const b = line("node", 5, 7)
    expect(statTicks(b, b.length)).toBe(12)
    expect(statTicks(b, 20)).toBe(-1)
    expect(statTicks(Buffer.from("no paren here 1 2 3"), 19)).toBe(-1)
    const cut = Buffer.from("4242 (node) S 1 4242 4242 0 -1 4194560 1234 0 0 0 x 7 0", "latin1")
    expect(statTicks(cut, cut.length)).toBe(-1)
  })
})
