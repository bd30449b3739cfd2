// Child process for tests: opens embedded ClickHouse on the directory given as argv[2], prints "ready", and keeps
// it open until stdin closes, so a test can check what another process sees while the directory is held.
import { makeClickHouseClient } from "../../src/clickhouse/ClickHouse.js"

const dataDir = process.argv[2]
if (dataDir === undefined) throw new Error("usage: holdChdb.ts <data dir>")
const handle = await makeClickHouseClient({ url: undefined, user: "default", password: "", database: "held", dataDir })
process.stdout.write("ready\n")
process.stdin.resume()
process.stdin.on("end", () => {
  void handle.client.close().then(() => process.exit(0))
})
