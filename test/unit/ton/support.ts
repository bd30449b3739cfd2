/**
 * Shared helpers for the TON unit tests: reading the real fixtures, turning a decode result into a value or a
 * failure, and golden files (a mismatch writes `<name>.actual.json` beside the committed expectation).
 */
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { Either } from "effect"
import { decodeTransaction } from "../../../src/ton/decode.js"
import type { DecodeError } from "../../../src/ton/errors.js"
import type { AccountStateRecord, TransactionRecord } from "../../../src/ton/record.js"
import { expectGoldenText } from "../../support/golden.js"

const here = path.dirname(fileURLToPath(import.meta.url))
export const REAL = path.resolve(here, "../../fixtures/real")
export const GOLDEN = path.resolve(here, "../../fixtures/ton/golden")

export const readReal = (rel: string): string => fs.readFileSync(path.join(REAL, rel), "utf8")
export const readRealJson = <T = any>(rel: string): T => JSON.parse(readReal(rel)) as T
export const listReal = (rel: string): Array<string> => fs.readdirSync(path.join(REAL, rel)).sort()

export const ok = <A>(e: Either.Either<A, DecodeError>): A => {
  if (Either.isLeft(e)) throw new Error(`unexpected DecodeError ${e.left.reason}: ${e.left.message}`)
  return e.right
}

export const err = <A>(e: Either.Either<A, DecodeError>): DecodeError => {
  if (Either.isRight(e)) throw new Error("expected a DecodeError, got a value")
  return e.left
}

/**
 * Compares `actual` with the committed golden file byte for byte (2-space JSON). With UPDATE_GOLDEN=1 a missing or
 * different file is (re)written instead; otherwise a mismatch leaves `<name>.actual.json` for review.
 */
export const expectGolden = (name: string, actual: unknown): void =>
  expectGoldenText(GOLDEN, name, JSON.stringify(actual, null, 2) + "\n")

/** Single-quoted YAML scalars of the recorded HTTP cassettes: folded line breaks become spaces, '' becomes '. */
export const yamlResponseBodies = (yaml: string): Array<string> => {
  const out: Array<string> = []
  const lines = yaml.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s*string: '(.*)$/.exec(lines[i]!)
    if (m === null) continue
    let buf = m[1]!
    const closed = (s: string) => /(^|[^'])('')*'$/.test(s)
    while (!closed(buf)) buf += " " + lines[++i]!.trim()
    out.push(buf.slice(0, -1).replace(/''/g, "'"))
  }
  return out
}

/**
 * The six mainnet transactions of the v3 traces fixture, decoded from their rebuilt BOCs, each with its trace id and
 * the fixture's account states (those with a balance): what a v3 renderer must render as toncenter served them.
 */
export const rebuiltMainnetCases = (): Array<{ tx: TransactionRecord; states: Map<string, AccountStateRecord> }> => {
  const traces = readRealJson("v3/ton-org-docs__cookbook-traces__v3_traces__mc-52372896.json")
  const rebuilt = readRealJson("v3/v3-transactions-with-rebuilt-bocs.json").items as Array<any>
  const recorded = Object.values(traces.traces[0].transactions) as Array<any>
  const states = new Map<string, AccountStateRecord>()
  for (const t of recorded) {
    for (const st of [t.account_state_before, t.account_state_after]) {
      if (st.balance !== null) states.set(st.hash, { account: t.account, ...st })
    }
  }
  return recorded.map((t) => {
    const item = rebuilt.find((i) => i.tx_hash_b64 === t.hash && i.verified)
    const block = {
      workchain: t.block_ref.workchain,
      shard: BigInt.asIntN(64, BigInt(`0x${t.block_ref.shard}`)).toString(),
      seqno: t.block_ref.seqno,
      root_hash: "",
      file_hash: ""
    }
    const tx = ok(decodeTransaction(item.boc_b64, { block, mc_block_seqno: t.mc_block_seqno }))
    return { tx: { ...tx, trace_id: t.trace_id ?? null }, states }
  })
}

/**
 * A transaction as the v3 renderers are compared on it: as it is, with its trace id set or cleared, and with its
 * inbound message's normalized hash equal to its hash (when it has one).
 */
export const v3Variants = (tx: TransactionRecord): Array<TransactionRecord> => [
  tx,
  { ...tx, trace_id: tx.trace_id === null ? tx.hash : null },
  ...(tx.in_msg === null ? [] : [{ ...tx, in_msg: { ...tx.in_msg, hash_norm: tx.in_msg.hash } }])
]
