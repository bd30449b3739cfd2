/**
 * Where the repository's own files are (sql/, scripts/, test/fixtures/, .cache/), for code that reads them at run
 * time. Invariant: the same directory whether this module runs from its TypeScript source (src/infra) or from the
 * compiled output (dist/src/infra): it is the nearest ancestor holding package.json, never a fixed number of `..`.
 */
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const findRoot = (from: string): string => {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`)
  }
}

export const repoRoot: string = findRoot(dirname(fileURLToPath(import.meta.url)))
