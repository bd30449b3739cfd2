/**
 * The optional fallback for accounts a bundle mentions but does not change (in-message sources and out-message
 * destinations, which the address book lists): their state at the end of the masterchain block, one
 * liteServer.getAccountState each, so the address book can apply toncenter's bounceable rule to them too.
 * Invariant: an account is asked at most once while it stays in the memory of reported accounts (an account the
 * blocks change is reported by its own state, so later changes arrive that way); an answer is used only when it is
 * for the masterchain block asked and its Account cell is the account asked for (proofs are not checked).
 */
import type { Cell } from "@ton/core"
import { Effect, Either } from "effect"
import { Functions } from "ton-lite-client/dist/schema.js"
import { decodeTransactionFast } from "../../ton/fast/decode.js"
import { Lru } from "../../trace/Lru.js"
import { accountStateOf } from "../../ton/accountState.js"
import { parseBocBytes } from "../../ton/boc.js"
import type { AccountStateRecord, BlockIdExt, HashB64, RawAddress } from "../../ton/record.js"
import type { RawTransaction } from "../types.js"
import { UpstreamError } from "../types.js"
import type { LitePool } from "./Pool.js"
import type { BundleStates } from "./states.js"

const REMEMBERED = 200_000

const malformed = (message: string) => new UpstreamError({ reason: "malformed", message })

/** Raw addresses of the messages' other ends: in-message sources and out-message destinations. */
export const counterparts = (txs: ReadonlyArray<RawTransaction>, mcSeqno: number): Set<RawAddress> => {
  const out = new Set<RawAddress>()
  for (const t of txs) {
    const r = decodeTransactionFast(t.boc, { block: t.block, mc_block_seqno: mcSeqno }, { exoticBodies: "keep" })
    if (Either.isLeft(r)) continue
    if (r.right.in_msg?.source) out.add(r.right.in_msg.source)
    for (const m of r.right.out_msgs) if (m.destination) out.add(m.destination)
  }
  return out
}

/** Whether an Account cell belongs to the address (account_none carries no address and is accepted). */
const isAccountOf = (cell: Cell, account: RawAddress): boolean => {
  const s = cell.beginParse(true)
  if (!s.loadBit()) return true
  const addr = s.loadAddress()
  return `${addr.workChain}:${addr.hash.toString("hex").toUpperCase()}` === account
}

export const makeAccountLookup = (pool: LitePool) => {
  const reported = new Lru<RawAddress, true>(REMEMBERED)
  let lookups = 0

  /** The account at the end of a masterchain block; null when it does not exist. */
  const stateAt = (mcId: BlockIdExt, account: RawAddress): Effect.Effect<AccountStateRecord | null, UpstreamError> => {
    const colon = account.indexOf(":")
    const workchain = Number(account.slice(0, colon))
    const id = Buffer.from(account.slice(colon + 1), "hex")
    return Effect.map(
      pool.query(
        Functions.liteServer_getAccountState,
        {
          kind: "liteServer.getAccountState",
          id: {
            kind: "tonNode.blockIdExt",
            workchain: mcId.workchain,
            shard: mcId.shard,
            seqno: mcId.seqno,
            rootHash: Buffer.from(mcId.root_hash, "base64"),
            fileHash: Buffer.from(mcId.file_hash, "base64")
          },
          account: { kind: "liteServer.accountId", workchain, id }
        },
        { needsSeqno: mcId.seqno },
        (answer, server) => {
          if (answer.id.seqno !== mcId.seqno || !Buffer.from(answer.id.rootHash).equals(Buffer.from(mcId.root_hash, "base64"))) {
            return malformed(`${server} answered the state of ${account} at another block`)
          }
          if (answer.state.length === 0) return undefined
          const cell = parseBocBytes(answer.state)
          if (Either.isLeft(cell)) return malformed(`${server}: state of ${account}: ${cell.left.message}`)
          try {
            if (!isAccountOf(cell.right, account)) return malformed(`${server} answered another account's state for ${account}`)
          } catch (e) {
            return malformed(`${server}: state of ${account} is not an Account: ${String(e)}`)
          }
          return accountStateOf(cell.right, account) === null ? malformed(`${server}: state of ${account} is not an Account`) : undefined
        }
      ),
      ({ answer }) => {
        lookups += 1
        if (answer.state.length === 0) return null
        return accountStateOf(Either.getOrThrow(parseBocBytes(answer.state)), account)
      }
    )
  }

  /**
   * The bundle's states plus those of the accounts its messages mention that neither the bundle nor an earlier one
   * reported: their code hash (null when they do not exist) and, when they exist, their state.
   */
  const fill = (
    mcId: BlockIdExt,
    mcSeqno: number,
    states: BundleStates,
    txs: ReadonlyArray<RawTransaction>
  ): Effect.Effect<BundleStates, UpstreamError> =>
    Effect.gen(function* () {
      const changed = new Set(txs.map((t) => t.account))
      for (const a of Object.keys(states.code_hashes)) reported.set(a, true)
      const wanted = [...counterparts(txs, mcSeqno)].filter((a) => !changed.has(a) && reported.get(a) === undefined).sort()
      if (wanted.length === 0) return states
      const found = yield* Effect.forEach(wanted, (a) => stateAt(mcId, a), { concurrency: 16 })
      const code_hashes: Record<RawAddress, HashB64 | null> = { ...states.code_hashes }
      const account_states = [...states.account_states]
      wanted.forEach((a, i) => {
        const s = found[i]!
        code_hashes[a] = s?.code_hash ?? null
        if (s !== null && s.account_status !== "nonexist") account_states.push(s)
        reported.set(a, true)
      })
      const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0)
      account_states.sort((x, y) => cmp(x.account, y.account) || cmp(x.hash, y.hash))
      return { account_states, code_hashes: Object.fromEntries(Object.entries(code_hashes).sort(([x], [y]) => cmp(x, y))) }
    })

  return { fill, stateAt, lookups: () => lookups }
}
