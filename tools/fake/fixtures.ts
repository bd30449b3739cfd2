/**
 * Real transactions from test/fixtures/real (block extractions and a recorded toncenter response), ready to be
 * re-homed into fake blocks. Invariant: each BOC is kept byte for byte as recorded and its hash is the root cell
 * hash of that BOC (checked on load), so the fake serves real upstream bytes.
 */
import { Cell } from "@ton/core"
import { readdirSync, readFileSync } from "node:fs"
import path from "node:path"
import { repoRoot } from "../../src/infra/paths.js"
import type { ChainTx } from "./ChainData.js"

export const fixturesDir = (): string => process.env["TON_FIXTURES_DIR"] ?? path.resolve(repoRoot, "test/fixtures/real")

export interface FixtureGroup {
  /** File the transactions come from; one group per recorded block. */
  readonly origin: string
  readonly workchain: number
  readonly txs: ReadonlyArray<ChainTx>
}

interface TxsJson {
  readonly block: { readonly workchain: number }
  readonly transactions: ReadonlyArray<{
    readonly account: string
    readonly lt: string
    readonly hash_b64: string
    readonly now: number
    readonly boc_b64: string
  }>
}

interface V2TxsJson {
  readonly result: {
    readonly id: { readonly workchain: number }
    readonly transactions: ReadonlyArray<{
      readonly account: string
      readonly utime: number
      readonly data: string
      readonly transaction_id: { readonly lt: string; readonly hash: string }
    }>
  }
}

const upperAccount = (a: string): string => {
  const i = a.indexOf(":")
  return `${a.slice(0, i)}:${a
    .slice(i + 1)
    .toUpperCase()
    .padStart(64, "0")}`
}

const checked = (tx: ChainTx): ChainTx => {
  const h = Cell.fromBase64(tx.boc).hash().toString("base64")
  if (h !== tx.hash) throw new Error(`fixture ${tx.origin}: BOC hash ${h} differs from recorded ${tx.hash}`)
  return tx
}

let cached: ReadonlyArray<FixtureGroup> | undefined

/** All recorded transactions, grouped by the block they were recorded in, in a stable order. */
export const loadFixtureGroups = (): ReadonlyArray<FixtureGroup> => {
  if (cached) return cached
  const dir = fixturesDir()
  const groups: Array<FixtureGroup> = []
  const blocksDir = path.join(dir, "blocks")
  for (const f of readdirSync(blocksDir)
    .filter((n) => n.endsWith(".txs.json"))
    .sort()) {
    const j = JSON.parse(readFileSync(path.join(blocksDir, f), "utf8")) as TxsJson
    groups.push({
      origin: f,
      workchain: j.block.workchain,
      txs: j.transactions.map((t) =>
        checked({ account: upperAccount(t.account), lt: t.lt, hash: t.hash_b64, boc: t.boc_b64, now: t.now, origin: f })
      )
    })
  }
  const v2 = "blockpi-official-docs__v2_getBlockTransactionsExt__mc-39984096.json"
  const j = JSON.parse(readFileSync(path.join(dir, "v2", v2), "utf8")) as V2TxsJson
  groups.push({
    origin: v2,
    workchain: j.result.id.workchain,
    txs: j.result.transactions.map((t) =>
      checked({
        account: upperAccount(t.account),
        lt: t.transaction_id.lt,
        hash: t.transaction_id.hash,
        boc: t.data,
        now: t.utime,
        origin: v2
      })
    )
  })
  cached = groups
  return groups
}
