/**
 * The real transactions of the recorded blocks in test/fixtures/real, as generator input: they open the generated
 * stream, before any emulated transaction, so real BOCs flow through the same pipeline as generated ones.
 * Invariant: each real transaction is used once, with its BOC, hash, account, lt and now untouched, in lt order.
 */
import { readdirSync, readFileSync } from "node:fs"
import path from "node:path"
import { Cell } from "@ton/core"
import { repoRoot } from "../../src/infra/paths.js"
import { readAfter } from "./derive.js"
import type { GenTx } from "./types.js"

export const defaultFixturesDir = path.resolve(repoRoot, "test/fixtures/real")

interface FixtureTx {
  readonly account: string
  readonly lt: string
  readonly hash_b64: string
  readonly now: string
  readonly boc_b64: string
}

/**
 * All transactions of `<dir>/blocks/*.txs.json`, sorted by lt. A missing directory is an error, not an empty list:
 * a chain generated without them would differ from the one its cache key names.
 */
export const loadFixtureTxs = (fixturesDir: string = defaultFixturesDir): Array<GenTx> => {
  const dir = path.join(fixturesDir, "blocks")
  let files: Array<string>
  try {
    files = readdirSync(dir).filter((f) => f.endsWith(".txs.json")).sort()
  } catch (e) {
    throw new Error(`real fixtures not found at ${dir} (${(e as Error).message}); pass fixturesDir: null to leave them out`)
  }
  const out: Array<GenTx> = []
  for (const f of files) {
    const doc = JSON.parse(readFileSync(path.join(dir, f), "utf8")) as { transactions: ReadonlyArray<FixtureTx> }
    for (const t of doc.transactions) {
      const [wc, hex] = t.account.split(":") as [string, string]
      out.push({
        account: `${wc}:${hex.toUpperCase()}`,
        workchain: Number(wc),
        lt: t.lt,
        hash: t.hash_b64,
        boc: t.boc_b64,
        now: Number(t.now),
        origin: "fixture",
        after: readAfter(Cell.fromBase64(t.boc_b64))
      })
    }
  }
  return out.sort((a, b) => (BigInt(a.lt) < BigInt(b.lt) ? -1 : BigInt(a.lt) > BigInt(b.lt) ? 1 : 0))
}
