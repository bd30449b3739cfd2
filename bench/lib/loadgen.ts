// Load generator run as a child process by the API benchmark, so its CPU and memory are not the server's: autocannon
// at a fixed concurrency against one base URL, cycling through a list of paths (many different blocks, as historical
// clients ask). Input: one JSON argument {base, paths, connections, seconds}; output: autocannon's result as JSON.
import { createRequire } from "node:module"
import { readFileSync } from "node:fs"

interface RequestSpec {
  readonly method: string
  readonly setupRequest: (req: Record<string, unknown>) => Record<string, unknown>
}
type Autocannon = (o: {
  url: string
  connections: number
  duration: number
  requests: ReadonlyArray<RequestSpec>
}) => Promise<unknown>
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon

interface Input {
  readonly base: string
  readonly paths: ReadonlyArray<string>
  readonly connections: number
  readonly seconds: number
}

// The input is a JSON file (tens of thousands of paths exceed what one command-line argument may hold).
const inputFile = process.argv[2]
const input = (inputFile === undefined ? {} : JSON.parse(readFileSync(inputFile, "utf8"))) as Partial<Input>
if (!input.base || !Array.isArray(input.paths) || input.paths.length === 0) {
  process.stderr.write(
    'usage: loadgen INPUT.json, holding {"base":"http://127.0.0.1:PORT","paths":["/..."],"connections":16,"seconds":10}\n'
  )
  process.exit(2)
}
const paths = input.paths

let next = 0
const result = await autocannon({
  url: input.base,
  connections: input.connections ?? 16,
  duration: input.seconds ?? 10,
  requests: [
    {
      method: "GET",
      setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length]! })
    }
  ]
})
process.stdout.write(JSON.stringify(result))
