// The product's API runnable started by a bench over a kept store: its process, the settings every read bench gives it
// (embedded engine on the store, loopback ports, no SQL endpoint, quiet logs) and the moment it listens; and the Node
// flags an npm script starts its runnable with, for benches that start the pipeline's runnables themselves.
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"

export interface Runnable {
  readonly pid: number
  readonly signal: (signal: NodeJS.Signals) => void
  /** SIGTERM, then the process's exit. */
  readonly stop: () => Promise<void>
}

/**
 * Starts `node [nodeArgs] [entry]` in `project` (entry: the compiled `dist/pipelines/api.js` or `--import tsx
 * pipelines/api.ts`) serving `dataDir` on `port` (metrics on port + 1); `env` adds to or overrides the settings.
 * Resolves once it prints that it listens; rejects if it exits before.
 */
export const startApiRunnable = async (opts: {
  readonly project: string
  readonly dataDir: string
  readonly port: number
  readonly nodeArgs: ReadonlyArray<string>
  readonly entry: ReadonlyArray<string>
  readonly env: Record<string, string>
}): Promise<Runnable> => {
  const child = spawn(process.execPath, [...opts.nodeArgs, ...opts.entry], {
    cwd: opts.project,
    env: {
      ...process.env,
      CLICKHOUSE_URL: "",
      CLICKHOUSE_DATA_DIR: opts.dataDir,
      API_HOST: "127.0.0.1",
      API_PORT: String(opts.port),
      METRICS_PORT: String(opts.port + 1),
      // no SQL endpoint: its default port (8123) may be taken by another process on the machine
      SQL_PORT: "0",
      LOG_LEVEL: "warn",
      ...opts.env
    },
    stdio: ["ignore", "pipe", "inherit"]
  })
  const exited = new Promise<void>((r) => child.on("exit", () => r()))
  await new Promise<void>((ok, fail) => {
    let out = ""
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString("utf8")
      if (out.includes("listening")) ok()
    })
    child.on("exit", (code) => fail(new Error(`api runnable exited with ${code} before listening: ${out.slice(0, 500)}`)))
  })
  return {
    pid: child.pid!,
    signal: (signal) => {
      child.kill(signal)
    },
    stop: async () => {
      child.kill("SIGTERM")
      await exited
    }
  }
}

/** BENCH_API_NODE_ARGS: Node options for the runnable alone (e.g. "--cpu-prof --cpu-prof-dir=DIR"). */
export const benchApiNodeArgs = (): Array<string> =>
  (process.env.BENCH_API_NODE_ARGS ?? "").split(" ").filter((a) => a.length > 0)

/** How an npm script starts its runnable: the variables set before `node`, Node's flags, and the script's file. */
export interface RunnableCommand {
  readonly env: Record<string, string>
  readonly flags: Array<string>
  /** The file `node` runs, relative to the project (e.g. dist/pipelines/producer.bundle.js). */
  readonly file: string
}

/**
 * How package.json's `scripts[name]` starts its runnable: `[NAME=VALUE ...] node [flags ...] file [args ...]` (e.g.
 * "MALLOC_ARENA_MAX=2 node --max-semi-space-size=4 dist/pipelines/producer.js" gives env { MALLOC_ARENA_MAX: "2" },
 * flags ["--max-semi-space-size=4"] and file "dist/pipelines/producer.js"), so that a bench starting the runnable
 * itself starts it as `npm run <name>` does. Throws when the script is missing, does not run `node` or names no file.
 */
export const runnableCommand = (name: string, project: string): RunnableCommand => {
  const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as { scripts?: Record<string, string> }
  const script = pkg.scripts?.[name]
  const words = script?.trim().split(/\s+/) ?? []
  const node = words.findIndex((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w))
  if (node < 0 || words[node] !== "node") throw new Error(`package.json script ${name}: not a "node ..." command: ${String(script)}`)
  const env = Object.fromEntries(words.slice(0, node).map((w) => [w.slice(0, w.indexOf("=")), w.slice(w.indexOf("=") + 1)]))
  const file = words.findIndex((w, i) => i > node && !w.startsWith("-"))
  if (file < 0) throw new Error(`package.json script ${name}: no file after node: ${String(script)}`)
  return { env, flags: words.slice(node + 1, file), file: words[file]! }
}

/**
 * What `npm run api` of `project` starts, as `startApiRunnable`'s entry: its Node flags and file (the bundle,
 * dist/pipelines/api.bundle.js, in a tree that builds one; dist/pipelines/api.js in older trees).
 */
export const apiEntry = (project: string): Array<string> => {
  const c = runnableCommand("api", project)
  return [...c.flags, c.file]
}
