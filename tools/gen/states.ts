/**
 * The account states a generated bundle carries, as toncenter v3 `accountStates` answers for the accounts its
 * transactions touch: each account's state after the block (the hash its last transaction there leaves, with that
 * transaction's end status) and its code hash. Invariant: a function of the seed and the bundles in masterchain order;
 * only an active account has code, an account left nonexistent has a null code and no state, and an account's code
 * changes only on deployment or on its one planned upgrade.
 * Known simplification: codes are drawn per address (wallets sharing a few codes, some of them the wallet codes the
 * address book's rule knows; shared contract codes; contracts with their own), not read from the emulated contracts.
 */
import { createHash } from "node:crypto"
import type { AccountStateRecord } from "../../src/ton/record.js"
import { WALLET_CODE_HASHES } from "../../src/ton/v3.js"
import type { GenBundle, GenTxAfter } from "./types.js"

const digest = (...parts: ReadonlyArray<string | number>): string =>
  createHash("sha256").update(parts.join("\u0000")).digest("base64")

/** A uniform number in [0, 1) from the parts. */
const unit = (...parts: ReadonlyArray<string | number>): number =>
  createHash("sha256").update(parts.join("\u0000")).digest().readUInt32BE(0) / 2 ** 32

/** The wallet codes the address book's rule knows (non-bounceable owners), most used first. */
const KNOWN_WALLETS = [...WALLET_CODE_HASHES].slice(0, 3)
/** Wallet-like codes the rule does not know (their owners are shown bounceable, as any contract). */
const OTHER_WALLETS = [digest("gen code", "wallet", "a"), digest("gen code", "wallet", "b")]
/** Contracts deployed many times from one code (jetton wallets, NFT items). */
const SHARED_CONTRACTS = [0, 1, 2, 3, 4, 5].map((i) => digest("gen code", "shared", i))

/** How an account's code is chosen, and the state number (its nth state) at which it is upgraded, if ever. */
interface Plan {
  readonly kind: "wallet" | "shared" | "own"
  readonly code: string
  readonly upgradeAt: number
  states: number
  upgraded: boolean
}

/** The mix: share of wallets, shared-code contracts and contracts with their own code; upgrades among the last. */
export const STATE_MIX = { wallet: 0.65, shared: 0.2, upgrade: 0.15 } as const

export class StateBook {
  private readonly plans = new Map<string, Plan>()

  constructor(private readonly seed: string) {}

  private plan(account: string): Plan {
    let p = this.plans.get(account)
    if (p !== undefined) return p
    const u = unit(this.seed, "kind", account)
    const pick = (list: ReadonlyArray<string>, salt: string) =>
      list[Math.floor(unit(this.seed, salt, account) * list.length)]!
    const masterchain = account.startsWith("-1:")
    if (!masterchain && u < STATE_MIX.wallet) {
      const known = unit(this.seed, "known", account) < 0.85
      // the first known code most often, as one wallet version dominates real chains
      const code = known
        ? KNOWN_WALLETS[Math.min(2, Math.floor(unit(this.seed, "w", account) ** 2 * 3))]!
        : pick(OTHER_WALLETS, "o")
      p = { kind: "wallet", code, upgradeAt: 0, states: 0, upgraded: false }
    } else if (!masterchain && u < STATE_MIX.wallet + STATE_MIX.shared) {
      p = { kind: "shared", code: pick(SHARED_CONTRACTS, "s"), upgradeAt: 0, states: 0, upgraded: false }
    } else {
      const upgrades = unit(this.seed, "upgrade", account) < STATE_MIX.upgrade
      const upgradeAt = upgrades ? 2 + Math.floor(unit(this.seed, "at", account) * 4) : 0
      p = { kind: "own", code: digest(this.seed, "code", account), upgradeAt, states: 0, upgraded: false }
    }
    this.plans.set(account, p)
    return p
  }

  /**
   * The bundle's account states (sorted by account, as the source sorts them) and code hashes (null without code),
   * from what each transaction leaves its account in (`after`, by transaction hash); an account whose last
   * transaction in the bundle has no `after` gets neither.
   */
  forBundle(
    bundle: Pick<GenBundle, "transactions">,
    after: (txHash: string) => GenTxAfter | undefined
  ): { account_states: Array<AccountStateRecord>; code_hashes: Record<string, string | null> } {
    const last = new Map<string, { lt: bigint; hash: string }>()
    for (const t of bundle.transactions) {
      const lt = BigInt(t.lt)
      const seen = last.get(t.account)
      if (seen === undefined || lt > seen.lt) last.set(t.account, { lt, hash: t.hash })
    }
    const account_states: Array<AccountStateRecord> = []
    const code_hashes: Record<string, string | null> = {}
    for (const account of [...last.keys()].sort()) {
      const a = after(last.get(account)!.hash)
      if (a === undefined) continue
      const p = this.plan(account)
      let code: string | null = null
      if (a.status === "active") {
        p.states += 1
        if (p.upgradeAt > 0 && p.states >= p.upgradeAt) p.upgraded = true
        code = p.upgraded ? digest(this.seed, "code v2", account) : p.code
      }
      code_hashes[account] = code
      // A nonexistent account has no state of its own (every one hashes alike): only its lack of code is reported,
      // as the liteserver source reports it.
      if (a.status === "nonexist") continue
      const balance = BigInt("0x" + createHash("sha256").update(a.hash).digest("hex").slice(0, 12)) % 5_000_000_000_000n
      account_states.push({
        hash: a.hash,
        account,
        balance: balance.toString(),
        extra_currencies: {},
        account_status: a.status,
        frozen_hash: a.status === "frozen" ? digest(this.seed, "frozen", a.hash) : null,
        data_hash: a.status === "active" ? digest(this.seed, "data", a.hash) : null,
        code_hash: code
      })
    }
    return { account_states, code_hashes }
  }
}
