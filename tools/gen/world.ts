/**
 * One emulated TON world: real contracts (wallets v3R2/v4R2/v5R1, highload v2, TEP-74 jettons, TEP-62 NFTs, an
 * external-out logger, special masterchain tick-tock accounts) executed by the TON emulator of @ton/sandbox, driven by
 * a seeded script of user actions. Invariant: the same (seed, world, target) yields the same transactions bit for bit:
 * keys, choices, unix time and the VM random seed all derive from the seed, never from the clock.
 */
import { Blockchain, createShardAccount } from "@ton/sandbox"
import { Address, beginCell, Cell, contractAddress, internal, SendMode, toNano } from "@ton/core"
import type { Message, MessageRelaxed, ShardAccount, StateInit } from "@ton/core"
import { WalletContractV3R2, WalletContractV4, WalletContractV5R1 } from "@ton/ton"
import {
  commentBody,
  highloadTransferBody,
  highloadWallet,
  jettonMintBody,
  jettonMinterInit,
  jettonTransferBody,
  jettonWalletInit,
  loggerInit,
  nftCollectionInit,
  nftItemAddress,
  nftMintBody,
  nftTransferBody,
  TICKTOCK_CODE
} from "./contracts.js"
import { keyFromSeed } from "./keys.js"
import type { GenKey } from "./keys.js"
import type { BaseTx } from "./derive.js"
import { derive32, Rng } from "./rng.js"

export interface WorldOptions {
  readonly seed: string
  /** Index of this world; worlds of one seed are independent and can run in parallel. */
  readonly world: number
  /** Stop once at least this many transactions were executed. */
  readonly targetTxs: number
  readonly users?: number
  /** Unix time of the first transaction. */
  readonly startTime?: number
  /** Logical time of the first transaction. */
  readonly startLt?: bigint
}

/** What the emulator produced, in execution (lt) order. */
export interface WorldResult {
  readonly txs: ReadonlyArray<BaseTx>
  /** Long-lived contracts ("wc:hex" lower case) that keep their identity when the base set is replicated. */
  readonly hubs: ReadonlyArray<string>
  /** Action name -> how many times it ran (for reports and tests). */
  readonly actions: Readonly<Record<string, number>>
  /** Externals the wallets rejected (should stay 0; non-zero means a script bug). */
  readonly rejected: number
}

type WalletKind = "v3r2" | "v4r2" | "v5r1"

interface User {
  readonly kind: WalletKind
  readonly key: GenKey
  readonly address: Address
  readonly init: StateInit
  readonly sign: (seqno: number, messages: Array<MessageRelaxed>, timeout: number) => Promise<Cell>
  seqno: number
  deployed: boolean
  /** Jetton balances per minter index. */
  readonly jettons: Map<number, bigint>
  readonly nfts: Set<number>
}

interface Highload {
  readonly key: GenKey
  readonly address: Address
  readonly walletId: number
  queries: number
}

const MODE = SendMode.PAY_GAS_SEPARATELY | SendMode.IGNORE_ERRORS
const MAX_OUT = { v3r2: 4, v4r2: 4, v5r1: 255 } as const
const DEFAULT_START_TIME = 1_760_000_000
const DEFAULT_START_LT = 60_000_000_000_000n

const makeUser = (seed: string, world: number, i: number, kind: WalletKind): User => {
  const key = keyFromSeed(derive32(seed, "world", world, "user", i))
  const signer = async (message: Cell) => key.sign(message.hash())
  const base = { kind, key, seqno: 0, deployed: false, jettons: new Map<number, bigint>(), nfts: new Set<number>() }
  if (kind === "v3r2") {
    const w = WalletContractV3R2.create({ workchain: 0, publicKey: key.publicKey })
    const sign = (seqno: number, messages: Array<MessageRelaxed>, timeout: number) =>
      w.createTransfer({ seqno, signer, messages, sendMode: MODE, timeout })
    return { ...base, address: w.address, init: w.init, sign }
  }
  if (kind === "v4r2") {
    const w = WalletContractV4.create({ workchain: 0, publicKey: key.publicKey })
    const sign = (seqno: number, messages: Array<MessageRelaxed>, timeout: number) =>
      w.createTransfer({ seqno, signer, messages, sendMode: MODE, timeout })
    return { ...base, address: w.address, init: w.init, sign }
  }
  const w = WalletContractV5R1.create({ workchain: 0, publicKey: key.publicKey })
  const sign = (seqno: number, messages: Array<MessageRelaxed>, timeout: number) =>
    w.createTransfer({ seqno, signer, messages, sendMode: MODE, timeout })
  return { ...base, address: w.address, init: w.init, sign }
}

const specialAccount = (address: Address, balance: bigint): ShardAccount => {
  const account = createShardAccount({ address, code: TICKTOCK_CODE, data: Cell.EMPTY, balance, workchain: -1 })
  const storage = account.account?.storage
  if (storage?.state.type === "active") {
    storage.state.state.special = { tick: true, tock: true }
  }
  return account
}

export const runWorld = async (opts: WorldOptions): Promise<WorldResult> => {
  const { seed, world } = opts
  const rng = new Rng(seed, "world", world)
  const bc = await Blockchain.create({ config: "slim" })
  bc.verbosity = { print: false, blockchainLogs: false, vmLogs: "none", debugLogs: false }
  bc.random = derive32(seed, "world", world, "vm-random")
  let now = (opts.startTime ?? DEFAULT_START_TIME) + world * 7
  bc.now = now
  // The emulator's lt counter is not public API; starting it at a mainnet-like value keeps lts realistic.
  ;(bc as unknown as { currentLt: bigint }).currentLt = opts.startLt ?? DEFAULT_START_LT + BigInt(world) * 1_000_000n

  const txs: Array<BaseTx> = []
  const actions: Record<string, number> = {}
  let rejected = 0
  const count = (name: string) => {
    actions[name] = (actions[name] ?? 0) + 1
  }
  // The transaction cell holds only the 256-bit account id; the emulator's own record has the full address.
  const record = (r: { transactions: ReadonlyArray<{ raw: Cell; address: bigint }> }) => {
    for (const t of r.transactions) {
      const hex = t.address.toString(16).padStart(64, "0")
      txs.push({ cell: t.raw, workchain: workchains.get(hex) ?? 0 })
    }
  }
  const workchains = new Map<string, number>()
  const tick = (maxStep = 2) => {
    now += rng.int(0, maxStep)
    bc.now = now
  }

  // Genesis: balances that on mainnet would come from earlier history are installed directly (no transaction).
  const highloads: Array<Highload> = []
  for (let h = 0; h < 2; h++) {
    const key = keyFromSeed(derive32(seed, "world", world, "highload", h))
    const hw = highloadWallet(key.publicKey, 698983191 + h)
    await bc.setShardAccount(
      hw.address,
      createShardAccount({ address: hw.address, code: hw.init.code!, data: hw.init.data!, balance: toNano(50_000_000n) })
    )
    highloads.push({ key, address: hw.address, walletId: hw.walletId, queries: 0 })
  }
  const specials = [0x33, 0x55].map((b) => new Address(-1, derive32(seed, "world", world, "special", b)))
  for (const s of specials) {
    await bc.setShardAccount(s, specialAccount(s, toNano(1000n)))
    workchains.set(s.hash.toString("hex"), -1)
  }

  const nUsers = opts.users ?? 400
  const kinds: Array<WalletKind> = ["v3r2", "v4r2", "v4r2", "v5r1", "v5r1"]
  const users = Array.from({ length: nUsers }, (_, i) => makeUser(seed, world, i, kinds[i % kinds.length]!))

  const other = (u: User): User => {
    for (;;) {
      const v = rng.pick(users)
      if (v !== u) return v
    }
  }

  const highloadSend = async (h: Highload, messages: Array<MessageRelaxed>) => {
    h.queries += 1
    const queryId = (BigInt(now + 120) << 32n) + BigInt(h.queries)
    const body = highloadTransferBody({ sign: h.key.sign, walletId: h.walletId, queryId, mode: 3, messages })
    const msg: Message = { info: { type: "external-in", dest: h.address, importFee: 0n }, body }
    try {
      record(await bc.sendMessage(msg))
    } catch {
      rejected += 1
    }
  }

  const walletSend = async (u: User, messages: Array<MessageRelaxed>) => {
    const body = await u.sign(u.seqno, messages, now + 60)
    const msg: Message = {
      info: { type: "external-in", dest: u.address, importFee: 0n },
      init: u.deployed ? undefined : u.init,
      body
    }
    try {
      record(await bc.sendMessage(msg))
      u.seqno += 1
      u.deployed = true
    } catch {
      rejected += 1
    }
  }

  // Payroll: highloads fund every user in batches of up to 254 (the highload v2 dictionary limit used in practice).
  for (let i = 0; i < users.length; i += 254) {
    const batch = users.slice(i, i + 254)
    await highloadSend(
      highloads[(i / 254) % highloads.length]!,
      batch.map((u, j) =>
        internal({ to: u.address, value: toNano(200 + rng.int(0, 800)), bounce: false, body: commentBody(`payout ${i + j}`) })
      )
    )
    tick()
    count("highload_payout")
  }

  // Most users activate their wallet soon after the first payout (deploy with state init plus a first transfer).
  for (const u of users) {
    if (!rng.chance(0.75)) continue
    await walletSend(u, [internal({ to: other(u).address, value: toNano("0.5"), bounce: false, body: commentBody("hello") })])
    tick(1)
    count("activate_wallet")
  }

  // Issuers: jetton minters, an NFT collection and loggers, deployed by user wallets with a state init.
  const minters = [0, 1].map((m) => {
    const admin = users[m]!
    const init = jettonMinterInit(admin.address, `${seed}-${world}-${m}`)
    return { admin, init, address: contractAddressOf(init), minted: 0 }
  })
  for (const m of minters) {
    await walletSend(m.admin, [internal({ to: m.address, value: toNano("0.5"), bounce: false, init: m.init })])
    tick()
    count("deploy_jetton_minter")
  }
  const collectionAdmin = users[2]!
  const collectionInit = nftCollectionInit(collectionAdmin.address, `${seed}-${world}`)
  const collection = contractAddressOf(collectionInit)
  await walletSend(collectionAdmin, [internal({ to: collection, value: toNano("1"), bounce: false, init: collectionInit })])
  count("deploy_nft_collection")
  let nftNext = 0
  const nftOwner = new Map<number, User>()
  const loggers = [0, 1, 2].map((t) => {
    const init = loggerInit(t + world * 16)
    return { init, address: contractAddressOf(init), deployed: false }
  })

  const nowhere = () => new Address(0, derive32(seed, "world", world, "nowhere", rng.next()))
  const jettonWalletOf = (owner: Address, minter: Address) => contractAddressOf(jettonWalletInit(owner, minter))

  const steps: Array<[string, number, () => Promise<void>]> = [
    [
      "comment_transfer",
      30,
      async () => {
        const u = rng.pick(users)
        const n = rng.int(1, Math.min(MAX_OUT[u.kind], 4))
        const msgs = Array.from({ length: n }, () =>
          internal({
            to: other(u).address,
            value: toNano(rng.int(1, 5000)) / 100n,
            bounce: rng.chance(0.5),
            body: rng.chance(0.8) ? commentBody(`gift #${rng.int(1, 1_000_000)}`) : Cell.EMPTY
          })
        )
        await walletSend(u, msgs)
      }
    ],
    [
      "v5_batch",
      3,
      async () => {
        const v5 = users.filter((u) => u.kind === "v5r1")
        const u = rng.pick(v5)
        const n = rng.int(10, 60)
        await walletSend(
          u,
          Array.from({ length: n }, (_, k) =>
            internal({ to: other(u).address, value: toNano("0.05"), bounce: false, body: commentBody(`airdrop ${k}`) })
          )
        )
      }
    ],
    [
      "jetton_mint",
      8,
      async () => {
        const mi = rng.int(0, minters.length - 1)
        const m = minters[mi]!
        const to = rng.pick(users)
        const amount = BigInt(rng.int(1, 1_000_000)) * 1_000_000_000n
        const body = jettonMintBody({
          queryId: BigInt(++m.minted),
          to: to.address,
          walletTon: toNano("0.05"),
          amount,
          responseTo: m.admin.address,
          forwardTon: rng.chance(0.5) ? toNano("0.01") : 0n
        })
        await walletSend(m.admin, [internal({ to: m.address, value: toNano("0.1"), bounce: true, body })])
        to.jettons.set(mi, (to.jettons.get(mi) ?? 0n) + amount)
      }
    ],
    [
      "jetton_transfer",
      22,
      async () => {
        const holders = users.filter((u) => [...u.jettons.values()].some((b) => b > 0n))
        if (holders.length === 0) return
        const u = rng.pick(holders)
        const mi = [...u.jettons.entries()].find(([, b]) => b > 0n)![0]
        const m = minters[mi]!
        const balance = u.jettons.get(mi)!
        const amount = balance / BigInt(rng.int(1, 4))
        const to = other(u)
        const body = jettonTransferBody({
          queryId: BigInt(rng.next()),
          amount,
          destination: to.address,
          responseTo: u.address,
          forwardTon: rng.chance(0.7) ? 1n : 0n,
          forwardPayload: rng.chance(0.5) ? commentBody(`for order ${rng.int(1, 99999)}`) : null
        })
        const wallet = jettonWalletOf(u.address, m.address)
        await walletSend(u, [internal({ to: wallet, value: toNano("0.1"), bounce: true, body })])
        u.jettons.set(mi, balance - amount)
        to.jettons.set(mi, (to.jettons.get(mi) ?? 0n) + amount)
      }
    ],
    [
      "nft_mint",
      5,
      async () => {
        const to = rng.pick(users)
        const index = nftNext++
        const body = nftMintBody(BigInt(index), index, toNano("0.05"), to.address)
        await walletSend(collectionAdmin, [internal({ to: collection, value: toNano("0.1"), bounce: true, body })])
        nftOwner.set(index, to)
        to.nfts.add(index)
      }
    ],
    [
      "nft_transfer",
      8,
      async () => {
        if (nftOwner.size === 0) return
        const index = rng.int(0, nftNext - 1)
        const owner = nftOwner.get(index)
        if (owner === undefined) return
        const to = other(owner)
        const body = nftTransferBody({
          queryId: BigInt(rng.next()),
          newOwner: to.address,
          responseTo: owner.address,
          forwardTon: rng.chance(0.5) ? toNano("0.01") : 0n,
          forwardPayload: null
        })
        await walletSend(owner, [
          internal({ to: nftItemAddress(collection, index), value: toNano("0.1"), bounce: true, body })
        ])
        owner.nfts.delete(index)
        to.nfts.add(index)
        nftOwner.set(index, to)
      }
    ],
    [
      "bounce_to_nowhere",
      5,
      async () => {
        const u = rng.pick(users)
        await walletSend(u, [internal({ to: nowhere(), value: toNano("0.3"), bounce: true, body: commentBody("hi?") })])
      }
    ],
    [
      "bad_opcode",
      3,
      async () => {
        // An unknown opcode to a jetton minter: its code throws 0xffff, the transaction aborts and the value bounces.
        const u = rng.pick(users)
        const m = rng.pick(minters)
        const body = beginCell().storeUint(0xdeadbeef, 32).storeUint(rng.next(), 64).endCell()
        await walletSend(u, [internal({ to: m.address, value: toNano("0.2"), bounce: true, body })])
      }
    ],
    [
      "dust",
      3,
      async () => {
        const u = rng.pick(users)
        const msgs = Array.from({ length: rng.int(1, 4) }, () =>
          internal({ to: other(u).address, value: 1n, bounce: true, body: commentBody("claim your reward") })
        )
        await walletSend(u, msgs)
      }
    ],
    [
      "logger_event",
      6,
      async () => {
        const u = rng.pick(users)
        const l = rng.pick(loggers)
        const body = beginCell().storeUint(0x4c4f4721, 32).storeUint(rng.next(), 32).storeStringTail("event").endCell()
        await walletSend(u, [internal({ to: l.address, value: toNano("0.05"), bounce: false, body, init: l.deployed ? undefined : l.init })])
        l.deployed = true
      }
    ],
    [
      "highload_batch",
      2,
      async () => {
        const h = rng.pick(highloads)
        const n = rng.int(100, 254)
        await highloadSend(
          h,
          Array.from({ length: n }, (_, k) => {
            const fresh = rng.chance(0.3)
            return internal({
              to: fresh ? nowhere() : rng.pick(users).address,
              value: toNano(rng.int(1, 100)) / 10n,
              bounce: false,
              body: commentBody(`withdrawal ${h.queries}-${k}`)
            })
          })
        )
      }
    ]
  ]
  const weights = steps.map(([, w]) => w)

  let sinceTickTock = 0
  while (txs.length < opts.targetTxs) {
    const [name, , run] = steps[rng.weighted(weights)]!
    await run()
    count(name)
    sinceTickTock += 1
    // Special accounts run tick and tock once per masterchain block; a block every few actions keeps the ratio sane.
    if (sinceTickTock >= 12) {
      sinceTickTock = 0
      record(await bc.runTickTock(specials, "tick"))
      record(await bc.runTickTock(specials, "tock"))
      count("tick_tock")
    }
    tick()
  }
  const hubs = [
    ...highloads.map((h) => h.address),
    ...minters.map((m) => m.address),
    collection,
    ...loggers.map((l) => l.address),
    ...specials
  ].map((a) => `${a.workChain}:${a.hash.toString("hex")}`)
  return { txs, hubs, actions, rejected }
}

const contractAddressOf = (init: StateInit): Address => contractAddress(0, init)
