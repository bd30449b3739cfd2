/**
 * Real TON transaction cells for generated chains, built with @ton/core's TL-B writers: wallet external messages
 * (some deploying with a state init), internal transfers with text comments, external-out logs, aborted and
 * bounced transactions, and masterchain tick-tock. Invariant: an internal message a transaction sends is the very
 * cell a later transaction receives, so message hashes link parents and children for trace ids.
 */
import {
  Address,
  beginCell,
  Cell,
  Dictionary,
  type DictionaryValue,
  loadMessage,
  type Message,
  type StateInit,
  storeMessage,
  storeTransaction,
  type Transaction,
  type TransactionBouncePhase,
  type TransactionComputePhase,
  type TransactionDescription
} from "@ton/core"
import type { ChainTx } from "./ChainData.js"

/** Deterministic 32-bit generator (mulberry32): the same seed always yields the same chain. */
export const makeRng = (seed: number) => {
  let a = seed >>> 0
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1))
  const bytes = (n: number): Buffer => {
    const b = Buffer.allocUnsafe(n)
    for (let i = 0; i < n; i += 4) b.writeUInt32BE((next() * 4294967296) >>> 0, i)
    return b
  }
  const big256 = (): bigint => BigInt("0x" + bytes(32).toString("hex"))
  return { next, int, bytes, big256, chance: (p: number) => next() < p }
}
export type Rng = ReturnType<typeof makeRng>

export interface GenAccount {
  readonly address: Address
  readonly raw: string
  lastLt: bigint
  lastHash: bigint
  status: "uninitialized" | "active"
  stateHash: bigint
}

export const makeAccount = (workchain: number, hash: Buffer, rng: Rng, active = false): GenAccount => ({
  address: new Address(workchain, hash),
  raw: `${workchain}:${hash.toString("hex").toUpperCase()}`,
  lastLt: 0n,
  lastHash: 0n,
  status: active ? "active" : "uninitialized",
  stateHash: rng.big256()
})

export interface PendingMessage {
  readonly message: Message
  readonly dest: GenAccount
  readonly from: GenAccount
  readonly round: number
}

const MessageValue: DictionaryValue<Message> = {
  serialize: (m, b) => b.storeRef(beginCell().store(storeMessage(m)).endCell()),
  parse: (s) => loadMessage(s.loadRef().beginParse())
}

const hash256 = (v: bigint): Buffer => Buffer.from(v.toString(16).padStart(64, "0"), "hex")

const WORDS = ["hello", "gm", "ton", "payment", "order", "deposit", "refund", "thanks", "invoice", "tip", "#", "🚀"]

const comment = (rng: Rng): Cell => {
  const n = rng.int(1, 6)
  const words: Array<string> = []
  for (let i = 0; i < n; i++) words.push(WORDS[rng.int(0, WORDS.length - 1)]!)
  return beginCell()
    .storeUint(0, 32)
    .storeStringTail(`${words.join(" ")} ${rng.int(1, 99999)}`)
    .endCell()
}

const opBody = (rng: Rng): Cell =>
  beginCell()
    .storeUint(rng.int(1, 0x7fffffff), 32)
    .storeUint(rng.int(0, 1 << 30), 64)
    .storeCoins(rng.int(1, 1e9))
    .endCell()

/**
 * Bodies and state inits come from fixed pools built once from their own seed: building cells is the generator's
 * main cost, and a body's content matters less than its kind, while messages stay unique through their lt and ends.
 */
const POOL = 512
const pools = (() => {
  const r = makeRng(0x5eed)
  const build = <A>(f: () => A) => Array.from({ length: POOL }, f)
  return {
    comment: build(() => comment(r)),
    op: build(() => opBody(r)),
    log: build(() => beginCell().storeUint(r.int(0, 0xffffffff), 32).storeBuffer(r.bytes(8)).endCell()),
    bounced: build(() => beginCell().storeUint(0xffffffff, 32).storeBuffer(r.bytes(4)).endCell()),
    init: build((): StateInit => ({
      code: beginCell().storeUint(0xff00f4a4, 32).storeBuffer(r.bytes(16)).endCell(),
      data: beginCell().storeUint(0, 32).storeBuffer(r.bytes(32)).endCell()
    }))
  }
})()
const pick = <A>(rng: Rng, pool: ReadonlyArray<A>): A => pool[rng.int(0, pool.length - 1)]!

const vmPhase = (rng: Rng, success: boolean, exitCode = 0): TransactionComputePhase => ({
  type: "vm",
  success,
  messageStateUsed: false,
  accountActivated: false,
  gasFees: BigInt(rng.int(1_000, 3_000_000)),
  gasUsed: BigInt(rng.int(300, 20_000)),
  gasLimit: 1_000_000n,
  gasCredit: null,
  mode: 0,
  exitCode,
  exitArg: null,
  vmSteps: rng.int(5, 400),
  vmInitStateHash: 0n,
  vmFinalStateHash: 0n
})

export type TxKind = "wallet" | "internal" | "aborted" | "ticktock"

export interface BuiltTx {
  readonly tx: ChainTx
  /** Internal messages sent, to be received by later transactions. */
  readonly sent: ReadonlyArray<PendingMessage>
}

export interface TxInput {
  readonly rng: Rng
  readonly account: GenAccount
  readonly lt: bigint
  readonly now: number
  readonly kind: TxKind
  readonly inbound?: PendingMessage | undefined
  /** Possible destinations of outgoing internal messages. */
  readonly peers: ReadonlyArray<GenAccount>
  readonly round: number
  readonly boc: (cell: Cell) => Buffer
}

const internal = (
  rng: Rng,
  src: GenAccount,
  dest: GenAccount,
  lt: bigint,
  now: number,
  body: Cell,
  flags: { bounce: boolean; bounced: boolean }
): Message => ({
  info: {
    type: "internal",
    ihrDisabled: true,
    bounce: flags.bounce,
    bounced: flags.bounced,
    src: src.address,
    dest: dest.address,
    value: { coins: BigInt(rng.int(1, 50_000)) * 1_000_000n },
    ihrFee: 0n,
    forwardFee: BigInt(rng.int(100_000, 2_000_000)),
    createdLt: lt,
    createdAt: now
  },
  body
})

export const buildTransaction = (input: TxInput): BuiltTx => {
  const { rng, account, lt, now, kind, peers, round } = input
  const out: Array<Message> = []
  const sent: Array<PendingMessage> = []
  let inMessage: Message | null = null
  let description: TransactionDescription
  const oldStatus = account.status
  let endStatus = account.status
  const storagePhase = {
    storageFeesCollected: BigInt(rng.int(0, 5_000)),
    storageFeesDue: null,
    statusChange: "unchanged" as const
  }
  let outLt = lt + 1n
  const send = (dest: GenAccount, body: Cell, flags = { bounce: true, bounced: false }) => {
    const m = internal(rng, account, dest, outLt++, now, body, flags)
    out.push(m)
    sent.push({ message: m, dest, from: account, round })
  }

  if (kind === "ticktock") {
    description = {
      type: "tick-tock",
      isTock: rng.chance(0.5),
      storagePhase,
      computePhase: vmPhase(rng, true),
      actionPhase: null,
      aborted: false,
      destroyed: false
    }
  } else if (kind === "wallet") {
    let init: StateInit | null = null
    if (account.status === "uninitialized") {
      init = pick(rng, pools.init)
      endStatus = "active"
    }
    inMessage = {
      info: { type: "external-in", src: null, dest: account.address, importFee: 0n },
      init,
      body: beginCell()
        .storeBuffer(rng.bytes(64))
        .storeUint(rng.int(0, 1 << 30), 32)
        .endCell()
    }
    const n = rng.int(0, 3)
    for (let i = 0; i < n && peers.length > 0; i++) {
      send(peers[rng.int(0, peers.length - 1)]!, rng.chance(0.6) ? pick(rng, pools.comment) : pick(rng, pools.op))
    }
    if (rng.chance(0.15)) {
      out.push({
        info: { type: "external-out", src: account.address, dest: null, createdLt: outLt++, createdAt: now },
        body: pick(rng, pools.log)
      })
    }
    description = {
      type: "generic",
      creditFirst: false,
      storagePhase,
      creditPhase: null,
      computePhase: vmPhase(rng, true),
      actionPhase: actionPhase(rng, out.length),
      bouncePhase: null,
      aborted: false,
      destroyed: false
    }
  } else {
    const inbound = input.inbound
    inMessage =
      inbound?.message ??
      internal(rng, peers[rng.int(0, peers.length - 1)] ?? account, account, lt - 1n, now, pick(rng, pools.comment), {
        bounce: true,
        bounced: false
      })
    const info = inMessage.info
    const bounceable = info.type === "internal" && info.bounce && !info.bounced
    const credit = { dueFeesColelcted: null, credit: { coins: info.type === "internal" ? info.value.coins : 0n } }
    const sender = inbound?.from
    if (kind === "aborted") {
      const skipped = rng.chance(0.5)
      const computePhase: TransactionComputePhase = skipped
        ? { type: "skipped", reason: account.status === "active" ? "no-gas" : "no-state" }
        : vmPhase(rng, false, rng.chance(0.5) ? 101 : 401)
      let bouncePhase: TransactionBouncePhase | null = null
      if (bounceable && sender) {
        // the bounced copy carries the original body prefixed by 0xffffffff, as the node writes it
        send(sender, pick(rng, pools.bounced), {
          bounce: false,
          bounced: true
        })
        bouncePhase = {
          type: "ok",
          messageSize: { cells: 1n, bits: 64n },
          messageFees: BigInt(rng.int(1000, 100_000)),
          forwardFees: BigInt(rng.int(100_000, 900_000))
        }
      } else if (bounceable) {
        bouncePhase = { type: "no-funds", messageSize: { cells: 1n, bits: 64n }, requiredForwardFees: 666_672n }
      }
      description = {
        type: "generic",
        creditFirst: !bounceable,
        storagePhase,
        creditPhase: credit,
        computePhase,
        actionPhase: null,
        bouncePhase,
        aborted: true,
        destroyed: false
      }
    } else {
      if (rng.chance(0.3) && peers.length > 0) send(peers[rng.int(0, peers.length - 1)]!, pick(rng, pools.comment))
      description = {
        type: "generic",
        creditFirst: !bounceable,
        storagePhase,
        creditPhase: credit,
        computePhase: vmPhase(rng, true),
        actionPhase: actionPhase(rng, out.length),
        bouncePhase: null,
        aborted: false,
        destroyed: false
      }
    }
  }

  const outMessages = Dictionary.empty(Dictionary.Keys.Uint(15), MessageValue)
  out.forEach((m, i) => outMessages.set(i, m))
  const newState = input.rng.big256()
  const tx: Transaction = {
    address: BigInt("0x" + account.address.hash.toString("hex")),
    lt,
    prevTransactionHash: account.lastHash,
    prevTransactionLt: account.lastLt,
    now,
    outMessagesCount: out.length,
    oldStatus,
    endStatus,
    inMessage,
    outMessages,
    totalFees: { coins: BigInt(rng.int(0, 10_000_000)) },
    stateUpdate: { oldHash: hash256(account.stateHash), newHash: hash256(newState) },
    description,
    raw: Cell.EMPTY,
    hash: () => Buffer.alloc(32)
  }
  const cell = beginCell().store(storeTransaction(tx)).endCell()
  const hash = cell.hash()
  account.lastLt = lt
  account.lastHash = BigInt("0x" + hash.toString("hex"))
  account.status = endStatus
  account.stateHash = newState
  return {
    tx: {
      account: account.raw,
      lt: lt.toString(),
      hash: hash.toString("base64"),
      boc: input.boc(cell).toString("base64"),
      now,
      origin: "generated"
    },
    sent
  }
}

const actionPhase = (rng: Rng, messages: number) => ({
  success: true,
  valid: true,
  noFunds: false,
  statusChange: "unchanged" as const,
  totalFwdFees: messages > 0 ? BigInt(messages * rng.int(100_000, 1_000_000)) : null,
  totalActionFees: messages > 0 ? BigInt(messages * rng.int(30_000, 300_000)) : null,
  resultCode: 0,
  resultArg: null,
  totalActions: messages,
  specActions: 0,
  skippedActions: 0,
  messagesCreated: messages,
  actionListHash: rng.big256(),
  totalMessageSize: { cells: BigInt(messages), bits: BigInt(messages * 700) }
})
