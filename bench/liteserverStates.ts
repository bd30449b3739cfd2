// Request cost of account states in the liteserver source, on the real shard blocks of test/fixtures/real: each block
// is served by the local liteserver inside a built masterchain block and read once per LITESERVER_ACCOUNT_STATES mode.
// Prints, per block and in total, lite API requests per masterchain block (getAccountState among them), the states
// and code hashes the bundle carries, and the time to read the bundle.
// Usage: npx tsx bench/liteserverStates.ts
// Numbers are printed, never asserted.
import fs from "node:fs"
import path from "node:path"
import { Effect, Exit, Scope } from "effect"
import { parseDirect } from "../src/source/liteserver/addresses.js"
import { makeLiteserverUpstream } from "../src/source/liteserver/Liteserver.js"
import type { AccountStatesMode } from "../src/source/liteserver/states.js"
import { installFastCellHash } from "../src/ton/fastHash.js"
import { realShardBlockChain } from "../tools/fake/liteserver/realBlocks.js"
import { startFakeLiteserver } from "../tools/fake/liteserver/server.js"

const DIR = path.resolve(import.meta.dirname, "../test/fixtures/real/blocks")
const FILES = [
  "mainnet__0_8000000000000000_30816553__tongo-block-1.boc",
  "mainnet__0_8000000000000000_40484416__tongo-block-2.boc",
  "mainnet__0_8000000000000000_40484438__tongo-block-3.boc",
  "mainnet__0_a000000000000000_54302208__tongo-block-6.boc",
  "mainnet__0_a000000000000000_54302203__tongo-block-7.boc",
  "mainnet__0_8000000000000000_34703989__ton-core-block.b64.txt"
]
const MODES: ReadonlyArray<AccountStatesMode> = ["off", "block", "block+lookup"]
const MC = 2_000_001

const read = (name: string): Buffer => {
  const raw = fs.readFileSync(path.join(DIR, name))
  if (name.endsWith(".b64.txt")) return Buffer.from(raw.toString("utf8").trim(), "base64")
  return raw
}

const main = async () => {
  installFastCellHash()
  const totals = new Map(MODES.map((m) => [m, { requests: 0, lookups: 0, states: 0, codes: 0, ms: 0 }]))
  for (const name of FILES) {
    const lite = realShardBlockChain(read(name), MC, name)
    const ls = await startFakeLiteserver({ chain: lite })
    try {
      const cells: Array<string> = []
      for (const mode of MODES) {
        const scope = await Effect.runPromise(Scope.make())
        try {
          const up = await Effect.runPromise(
            Scope.extend(makeLiteserverUpstream({ servers: parseDirect(ls.config)!, accountStates: mode }), scope)
          )
          await Effect.runPromise(up.head)
          const before = up.requests()
          const t0 = performance.now()
          const b = await Effect.runPromise(up.bundle(MC))
          const ms = performance.now() - t0
          const requests = up.requests() - before
          const t = totals.get(mode)!
          t.requests += requests
          t.lookups += up.accountLookups()
          t.states += b.account_states.length
          t.codes += Object.keys(b.code_hashes).length
          t.ms += ms
          cells.push(
            `${mode}: ${requests} req (${up.accountLookups()} getAccountState), ${b.account_states.length} states, ` +
              `${Object.keys(b.code_hashes).length} code hashes, ${ms.toFixed(0)} ms`
          )
        } finally {
          await Effect.runPromise(Scope.close(scope, Exit.void))
        }
      }
      console.log(`${name.replace(/__.*?__/, " ").slice(0, 40)}\n  ${cells.join("\n  ")}`)
    } finally {
      await ls.stop()
    }
  }
  console.log(`per masterchain block, averaged over ${FILES.length} real shard blocks (each committed by its own masterchain block):`)
  for (const [mode, t] of totals) {
    const n = FILES.length
    console.log(
      `  LITESERVER_ACCOUNT_STATES=${mode}: ${(t.requests / n).toFixed(2)} requests ` +
        `(${(t.lookups / n).toFixed(2)} getAccountState), ${(t.states / n).toFixed(1)} states, ` +
        `${(t.codes / n).toFixed(1)} code hashes, ${(t.ms / n).toFixed(0)} ms per bundle`
    )
  }
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
