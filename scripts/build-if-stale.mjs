// The pre-hook of `npm start` and every pipeline script: runs the build (scripts/build.mjs, as `npm run build` does:
// compiles to dist/, bundles the decode worker and the runnables there) only when a TypeScript source, a build
// script, the build config or package.json is newer than the last build, so an unchanged tree starts at once.
// Invariant: after it succeeds, dist/ holds the compilation of the current sources (tsc's own incremental build
// decides what to re-emit; this only skips starting it when nothing changed).
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const root = new URL("..", import.meta.url).pathname
// Written after each successful build (tsc leaves its own .tsbuildinfo untouched when nothing changed).
const stamp = join(root, "dist", ".built")

const newest = (dir) => {
  let t = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) t = Math.max(t, newest(p))
    else if (e.name.endsWith(".ts") || e.name.endsWith(".mjs")) t = Math.max(t, statSync(p).mtimeMs)
  }
  return t
}

const sources = () =>
  Math.max(
    ...["src", "tools", "pipelines", "scripts"].map((d) => newest(join(root, d))),
    ...["tsconfig.json", "tsconfig.build.json", "package.json"].map((f) => statSync(join(root, f)).mtimeMs)
  )

if (!existsSync(stamp) || statSync(stamp).mtimeMs < sources()) {
  // the build's own steps (scripts/build.mjs, which `npm run build` runs too)
  const r = spawnSync(process.execPath, [join(root, "scripts", "build.mjs")], { stdio: "inherit" })
  if (r.status !== 0) process.exit(r.status ?? 1)
  writeFileSync(stamp, `${new Date().toISOString()}\n`)
}
