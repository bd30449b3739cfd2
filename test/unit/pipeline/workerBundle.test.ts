// The decode worker's script is one bundled module both ways a pool starts it: from the sources (DecodePool through
// bundleDecodeWorker) and from the build (`npm run build` and the runnables' pre-hook run scripts/build.mjs, whose
// worker bundle the compiled pool starts). The bundle imports nothing but Node's built-ins and @ton/* (which fastHash
// patches in node_modules): every other package, `effect` first, is inside it, tree-shaken, so a worker no longer
// loads the whole `effect` package that a barrel import names. The producer runnable is one bundled module the same
// way (bundleRunnable), with the packages its main thread patches or requires by path left to node_modules, and its
// npm script starts that bundle; so are the consumer, the API and `npm start`'s all-in-one.
import { spawn, spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { builtWorkerScript } from "../../../src/producer/DecodePool.js"
import {
  bundleDecodeWorker,
  bundleRunnable,
  RUNNABLE_BUNDLES,
  RUNNABLE_EXTERNAL,
  writeBundle
} from "../../../src/producer/workerBundle.js"
import { freePortPair } from "../../../tools/ports.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as { scripts: Record<string, string> }

/** The modules a bundle's top-level import statements name (one statement a line, or `;`-separated in one line). */
const imported = (code: string): Array<string> =>
  [...code.matchAll(/(?:^|;)import\s*(?:[^'";]*?\s*from\s*)?["']([^"']+)["']/gm)].map((m) => m[1]!)

/** Whether `name` is a package `externals` leaves out (exactly, or under a `pkg/*` or `@scope/*` pattern). */
const leftOut = (name: string, externals: ReadonlyArray<string>) =>
  externals.some((e) => (e.endsWith("/*") ? name.startsWith(e.slice(0, -1)) : name === e))

describe("the decode worker's bundle", () => {
  it("holds every module but Node's built-ins and @ton/*, effect's tree-shaken", async () => {
    const code = await bundleDecodeWorker(`${root}src/producer/decodeWorker.ts`)
    const names = imported(code)
    expect(names.length).toBeGreaterThan(0)
    expect(names.filter((n) => !n.startsWith("node:") && !n.startsWith("@ton/"))).toEqual([])
    // effect's modules that the worker never uses are left out (its barrel would load Stream, Layer, Schedule ...)
    expect(code).not.toMatch(/\/\/ node_modules\/effect\/dist\/esm\/Stream\.js/)
    expect(code).toMatch(/\/\/ node_modules\/effect\/dist\/esm\/Either\.js/)
  }, 60_000)

  it("is found in dist/ by compiled code, and a missing one says to build", () => {
    const empty = mkdtempSync(join(tmpdir(), "no-build-"))
    try {
      expect(() => builtWorkerScript(empty)).toThrow(/decodeWorker\.bundle\.js is missing: run `npm run build`/)
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
  })
})

/** `code` written where a runnable's bundle runs from (beside the project's node_modules), for `use`; then removed. */
const asBundle = async <A>(name: string, code: string, use: (file: string) => Promise<A> | A): Promise<A> => {
  const dir = mkdtempSync(join(root, ".cache", `${name}-bundle-`))
  try {
    const file = join(dir, `${name}.bundle.js`)
    writeBundle(file, code)
    return await use(file)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe("the producer runnable's bundle", () => {
  it("imports only Node's built-ins and the packages left to node_modules, in ASCII, and starts", async () => {
    const code = await bundleRunnable(`${root}pipelines/producer.ts`)
    const names = imported(code)
    expect(names).toContain("kafkajs")
    expect(names.filter((n) => !n.startsWith("node:") && !leftOut(n, RUNNABLE_EXTERNAL))).toEqual([])
    // V8 keeps the source text for the thread's life: one byte a character only when all of it is ASCII
    expect(/[^\x00-\x7f]/.test(code)).toBe(false)
    // it runs beside the project's node_modules, as dist/pipelines/producer.bundle.js does: --help loads every module
    const run = await asBundle("producer", code, (file) =>
      spawnSync(process.execPath, [file, "--help"], { cwd: root, encoding: "utf8", timeout: 60_000 })
    )
    expect(run.stderr).toBe("")
    expect(run.status).toBe(0)
    expect(run.stdout).toMatch(/^usage: npm run producer/)
  }, 120_000)

  it("is what `npm run producer` starts", () => {
    expect(RUNNABLE_BUNDLES).toContainEqual(["pipelines/producer.js", "pipelines/producer.bundle.js"])
    expect(pkg.scripts.producer).toBe("node dist/pipelines/producer.bundle.js")
  })
})

/** Runs `file` until it prints `until` on stdout (resolves with the output) or exits (rejects), killed within 60 s. */
const runUntil = (file: string, env: Record<string, string>, until: RegExp): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { cwd: root, env: { ...process.env, ...env } })
    let out = ""
    let err = ""
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString("utf8")
      if (until.test(out)) child.kill("SIGTERM")
    })
    child.stderr.on("data", (d: Buffer) => (err += d.toString("utf8")))
    child.on("exit", () => {
      clearTimeout(timer)
      if (until.test(out)) resolve(out)
      else reject(new Error(`${file} exited before printing ${until}: ${out}${err}`))
    })
  })

describe("the consumer's, the API's and the all-in-one's bundles", () => {
  const bundles = [
    ["consumer", "npm run consumer", pkg.scripts.consumer],
    ["api", "npm run api", pkg.scripts.api],
    ["all", "npm start", pkg.scripts.start]
  ] as const

  for (const [name, command, script] of bundles) {
    it(`${name}: imports only Node's built-ins and the packages left to node_modules, in ASCII; \`${command}\` starts it`, async () => {
      const code = await bundleRunnable(`${root}pipelines/${name}.ts`)
      expect(imported(code).filter((n) => !n.startsWith("node:") && !leftOut(n, RUNNABLE_EXTERNAL))).toEqual([])
      expect(/[^\x00-\x7f]/.test(code)).toBe(false)
      expect(RUNNABLE_BUNDLES).toContainEqual([`pipelines/${name}.js`, `pipelines/${name}.bundle.js`])
      expect(script).toBe(`node dist/pipelines/${name}.bundle.js`)
    }, 120_000)
  }

  it("all: --help loads every module and prints the usage", async () => {
    const code = await bundleRunnable(`${root}pipelines/all.ts`)
    const run = await asBundle("all", code, (file) =>
      spawnSync(process.execPath, [file, "--help"], { cwd: root, encoding: "utf8", timeout: 60_000 })
    )
    expect(run.stderr).toBe("")
    expect(run.status).toBe(0)
    expect(run.stdout).toMatch(/^usage: npm start/)
  }, 120_000)

  it("api: opens the embedded engine on an empty data folder and listens", async () => {
    const code = await bundleRunnable(`${root}pipelines/api.ts`)
    const data = mkdtempSync(join(tmpdir(), "api-bundle-data-"))
    const port = await freePortPair()
    try {
      const out = await asBundle("api", code, (file) =>
        runUntil(
          file,
          { CLICKHOUSE_URL: "", CLICKHOUSE_DATA_DIR: data, API_HOST: "127.0.0.1", API_PORT: String(port), METRICS_PORT: String(port + 1), SQL_PORT: "0", LOG_LEVEL: "warn" },
          new RegExp(`api: listening on http://127\\.0\\.0\\.1:${port} \\(clickhouse chdb `)
        )
      )
      expect(out).toContain(data)
    } finally {
      rmSync(data, { recursive: true, force: true })
    }
  }, 120_000)

  it("consumer: runs to its Kafka connection and names KAFKA_BROKERS when no broker answers", async () => {
    const code = await bundleRunnable(`${root}pipelines/consumer.ts`)
    const data = mkdtempSync(join(tmpdir(), "consumer-bundle-data-"))
    // a port nothing listens on
    const port = await freePortPair()
    try {
      const run = await asBundle("consumer", code, (file) =>
        spawnSync(process.execPath, [file], {
          cwd: root,
          encoding: "utf8",
          timeout: 60_000,
          env: { ...process.env, KAFKA_BROKERS: `127.0.0.1:${port}`, CLICKHOUSE_URL: "", CLICKHOUSE_DATA_DIR: data }
        })
      )
      expect(run.status).toBe(1)
      expect(run.stderr).toMatch(new RegExp(`KAFKA_BROKERS=127\\.0\\.0\\.1:${port}: no Kafka broker answered`))
    } finally {
      rmSync(data, { recursive: true, force: true })
    }
  }, 120_000)
})

describe("the build", () => {
  it("is one list of steps: `npm run build` and the runnables' pre-hook both run scripts/build.mjs", () => {
    expect(pkg.scripts.build).toBe("node scripts/build.mjs")
    const stale = readFileSync(`${root}scripts/build-if-stale.mjs`, "utf8")
    expect(stale).toContain('join(root, "scripts", "build.mjs")')
    // no step of its own: neither the compiler nor a bundle named there
    expect(stale).not.toMatch(/"tsc"|typescript|bundleDecodeWorker|bundleRunnable|bundle-worker/)
    const build = readFileSync(`${root}scripts/build.mjs`, "utf8")
    expect(build).toContain("tsconfig.build.json")
    expect(build).toContain("bundleRunnable")
    expect(build).toContain("bundleDecodeWorker")
  })
})

/** docker-compose.yml's services and their `command` (one flow sequence a line), read line by line. */
const composeCommands = (text: string): Map<string, ReadonlyArray<string>> => {
  const commands = new Map<string, ReadonlyArray<string>>()
  let service: string | undefined
  let inServices = false
  for (const line of text.split("\n")) {
    if (/^\S/.test(line)) inServices = line.startsWith("services:")
    const key = /^ {2}([a-z0-9-]+):\s*$/.exec(line)
    if (inServices && key) service = key[1]
    const command = /^ {4}command:\s*(\[.*\])\s*$/.exec(line)
    if (inServices && service !== undefined && command) commands.set(service, JSON.parse(command[1]!) as Array<string>)
  }
  return commands
}

describe("docker-compose.yml", () => {
  const commands = composeCommands(readFileSync(`${root}docker-compose.yml`, "utf8"))

  it("starts the producer, the consumer and the API as their npm scripts do, single node and cluster", () => {
    for (const name of ["producer", "consumer", "api"]) {
      for (const service of [name, `${name}-cluster`]) {
        expect(commands.get(service)?.join(" "), service).toBe(pkg.scripts[name])
      }
    }
  })

  it("runs built files only, each one the build writes; the install service builds them", () => {
    const written = new Set(RUNNABLE_BUNDLES.map(([, bundle]) => `dist/${bundle}`))
    const run = [...commands].filter(([, c]) => c[0] === "node")
    expect(run.length).toBeGreaterThanOrEqual(8)
    for (const [service, [, file]] of run) {
      if (file === "dist/pipelines/migrate.js") {
        expect(pkg.scripts.migrate, service).toBe(`node ${file}`)
        continue
      }
      expect(written.has(file!), `${service}: ${file}`).toBe(true)
    }
    expect([...commands.values()].some((c) => c.includes("tsx"))).toBe(false)
    expect(commands.get("install")).toEqual(["npm", "ci", "--no-audit", "--no-fund"])
    expect(pkg.scripts.prepare).toBe("node scripts/build-if-stale.mjs")
  })
})
