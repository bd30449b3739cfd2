// Load generator run as a child process by the API benchmark, so its CPU and memory are not the server's: autocannon
// at a fixed concurrency against one base URL, cycling through a list of paths (many different blocks, as historical
// clients ask). Input: one JSON argument {base, paths, connections, seconds}; output: autocannon's result as JSON.
import { createRequire } from "node:module"

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

const input = JSON.parse(process.argv[2] ?? "{}") as Input
if (!input.base || !Array.isArray(input.paths) || input.paths.length === 0) {
  process.stderr.write("usage: loadgen '{\"base\":\"http://127.0.0.1:PORT\",\"paths\":[\"/...\"],\"connections\":16,\"seconds\":10}'\n")
  process.exit(2)
}

let next = 0
const result = await autocannon({
  url: input.base,
  connections: input.connections,
  duration: input.seconds,
  requests: [
    {
      method: "GET",
      setupRequest: (req) => ({ ...req, path: input.paths[next++ % input.paths.length]! })
    }
  ]
})
process.stdout.write(JSON.stringify(result))
