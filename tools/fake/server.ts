/**
 * A local stand-in for toncenter: serves the v2 endpoints the source uses (and v3 blocks and account states, the
 * chain's own as of the block asked about when it has them) from a ChainData, in toncenter's JSON shapes and error
 * envelopes, with scripted faults, toncenter's limits (a per-key rate answered with 429, at most 10000 transactions
 * per page) and a head that can advance on a clock, recording when each masterchain block appeared. Invariant: only
 * blocks committed by a revealed masterchain block exist for clients; everything served about a block is derived
 * from the same ChainData the tests use as truth. Listens on 127.0.0.1.
 */
import { createHash } from "node:crypto"
import http from "node:http"
import type { AddressInfo } from "node:net"
import { blockKey, FULL_SHARD } from "../../src/source/shard.js"
import type { ChainAccountState, ChainBlock, ChainData } from "./ChainData.js"
import { type FaultPlan, type FaultRule, faultFor } from "./faults.js"
import { type GenerateOptions, generateChain } from "./generate.js"
import { installFastCellHash } from "../../src/ton/fastHash.js"
import { renderV2BlockIdExt } from "../../src/ton/v2.js"
import { blockHeaderJson, extra, rawTransactionJson } from "./render.js"
import { renderV3Block } from "../../src/api/assemble/v3.js"

/** Accounts per v3 accountStates request of the toncenter source (its V3_BATCH). */
const ACCOUNT_BATCH = 100

/** The last state of an account's list (masterchain order) at or before masterchain block `mc`. */
const atOrBefore = (list: ReadonlyArray<ChainAccountState>, mc: number): ChainAccountState | undefined => {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (list[mid]!.mcSeqno <= mc) lo = mid + 1
    else hi = mid
  }
  return lo === 0 ? undefined : list[lo - 1]
}

export type ChainSpec = ChainData | { readonly kind: "fixtures" } | ({ readonly kind: "generated" } & GenerateOptions)

export interface RequestLogEntry {
  /** Wall-clock arrival time in milliseconds (fractional). */
  readonly at: number
  /** v2 method name or "v3/<method>". */
  readonly endpoint: string
  readonly query: Readonly<Record<string, string>>
  readonly status: number
  readonly fault: FaultRule["kind"] | undefined
  readonly apiKey: string | undefined
}

export interface FakeToncenterOptions {
  readonly chain: ChainSpec
  /** 0 (default) picks a free port. */
  readonly port?: number
  /** When set, requests must carry it in X-API-Key. */
  readonly apiKey?: string
  readonly faults?: FaultPlan
  /** Masterchain blocks visible at start (default: all); `everyMs` reveals one more each interval. */
  readonly reveal?: { readonly initial?: number; readonly everyMs?: number }
  /** Added to every answer. */
  readonly latencyMs?: number
  /**
   * toncenter's rate limit: each API key (or, without one, the whole server) may send `rps` requests per second,
   * with a burst of one second's worth; a request over it is answered 429 as toncenter does. Off by default.
   */
  readonly rateLimit?: { readonly rps: number }
  /**
   * Render every block's transactions before serving and keep them all (default: render on first request, keep the
   * last 256 blocks). Benchmarks use it so that what they measure is the exporter, not the fake upstream's rendering.
   */
  readonly prerender?: boolean
}

export interface FakeToncenter {
  /** Base URL without the `/api/v2` suffix. */
  readonly url: string
  readonly chain: ChainData
  readonly requests: ReadonlyArray<RequestLogEntry>
  readonly head: () => number
  /** Reveals n more masterchain blocks; returns the new head. */
  readonly advance: (n?: number) => number
  readonly setFaults: (plan: FaultPlan) => void
  readonly clearRequests: () => void
  /** Most requests handled at the same time since the start or the last `clearRequests`. */
  readonly maxInFlight: () => number
  /** Wall-clock time (ms, like `RequestLogEntry.at`) at which a masterchain block became visible. */
  readonly revealedAt: (mcSeqno: number) => number | undefined
  /** Requests per endpoint (v2 method or "v3/<method>") in the log, by answer: all, and those refused with 429. */
  readonly requestCounts: () => Record<string, { readonly all: number; readonly rateLimited: number }>
  readonly stop: () => Promise<void>
}

/** The bundled offline chain: a small shard layout with splits and merges carrying only recorded real transactions. */
export const fixturesChain = (): ChainData => ({
  ...generateChain({ seed: 1, mcBlocks: 16, txPerBlock: 0, maxShards: 4, splitChance: 0.3, mergeChance: 0.2 }),
  name: "fixtures (recorded real transactions)"
})

export const resolveChain = (spec: ChainSpec): ChainData => {
  if ("masterchain" in spec) return spec
  if (spec.kind === "fixtures") return fixturesChain()
  const { kind: _kind, ...opts } = spec
  return generateChain(opts)
}

class HttpError {
  constructor(
    readonly status: number,
    readonly message: string
  ) {}
}

const notApplied = (what: string) => new HttpError(500, `LITE_SERVER_UNKNOWN: block is not applied (${what})`)

const intParam = (q: Record<string, string>, name: string, required: boolean): number | undefined => {
  const v = q[name]
  if (v === undefined || v === "") {
    if (required) throw new HttpError(422, `Validation error: field required: ${name}`)
    return undefined
  }
  if (!/^-?\d+$/.test(v)) throw new HttpError(422, `Validation error: value is not a valid integer: ${name}`)
  return Number(v)
}

const shardParam = (q: Record<string, string>): string => {
  const v = q["shard"]
  if (v === undefined || !/^-?\d+$/.test(v))
    throw new HttpError(422, "Validation error: value is not a valid integer: shard")
  return BigInt.asIntN(64, BigInt(v)).toString()
}

/** Hash params come as base64 (std or url-safe) or hex; answers compare them as standard base64. */
const hashParam = (v: string | undefined): string | undefined => {
  if (v === undefined || v === "") return undefined
  if (/^[0-9a-fA-F]{64}$/.test(v)) return Buffer.from(v, "hex").toString("base64")
  const b = Buffer.from(v.replace(/-/g, "+").replace(/_/g, "/"), "base64")
  if (b.length !== 32) throw new HttpError(503, "Invalid hash")
  return b.toString("base64")
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** toncenter's C++ v2 bound on `count` of getBlockTransactionsExt. */
export const MAX_PAGE = 10_000

/** A token bucket per key: `rps` tokens a second, holding at most one second's worth. */
const makeRateLimiter = (rps: number) => {
  const buckets = new Map<string, { tokens: number; at: number }>()
  return (key: string, now: number): boolean => {
    const b = buckets.get(key) ?? { tokens: rps, at: now }
    b.tokens = Math.min(rps, b.tokens + ((now - b.at) / 1000) * rps)
    b.at = now
    buckets.set(key, b)
    if (b.tokens < 1) return false
    b.tokens -= 1
    return true
  }
}

export const startFakeToncenter = async (opts: FakeToncenterOptions): Promise<FakeToncenter> => {
  const chain = resolveChain(opts.chain)
  let plan: FaultPlan = opts.faults ?? []
  let head =
    opts.reveal?.initial !== undefined ? Math.min(chain.last, chain.first + opts.reveal.initial - 1) : chain.last
  const requests: Array<RequestLogEntry> = []
  const counters = new Map<string, number>()
  const rendered = new Map<string, ReadonlyArray<unknown>>()
  // Rendering decodes every transaction with @ton/core; node:crypto hashing makes that several times cheaper.
  installFastCellHash()
  if (opts.prerender === true) {
    for (const b of chain.blocks.values()) rendered.set(blockKey(b.record.id), b.txs.map(rawTransactionJson))
  }
  let inFlight = 0
  let maxInFlight = 0
  const now = () => performance.timeOrigin + performance.now()
  const revealed = new Map<number, number>()
  const reveal = (to: number) => {
    const t = now()
    for (let s = head + 1; s <= to; s++) revealed.set(s, t)
    head = to
    return head
  }
  const allowed = opts.rateLimit !== undefined && opts.rateLimit.rps > 0 ? makeRateLimiter(opts.rateLimit.rps) : undefined

  const visible = (b: ChainBlock | undefined): b is ChainBlock => b !== undefined && b.record.mc_block_seqno <= head

  const findBlock = (q: Record<string, string>): ChainBlock => {
    const workchain = intParam(q, "workchain", true)!
    const shard = shardParam(q)
    const seqno = intParam(q, "seqno", true)!
    if (seqno <= 0 && workchain !== -1) throw new HttpError(422, "Validation error: seqno should be positive")
    const b = chain.blocks.get(blockKey({ workchain, shard, seqno }))
    if (!visible(b)) throw notApplied(`${workchain}:${shard}:${seqno}`)
    const root = hashParam(q["root_hash"])
    const file = hashParam(q["file_hash"])
    if (
      root !== undefined &&
      file !== undefined &&
      (root !== b.record.id.root_hash || file !== b.record.id.file_hash)
    ) {
      throw new HttpError(500, "LITE_SERVER_UNKNOWN: Liteserver responded with wrong block")
    }
    return b
  }

  const renderedTxs = (b: ChainBlock): ReadonlyArray<unknown> => {
    const k = blockKey(b.record.id)
    let r = rendered.get(k)
    if (r === undefined) {
      r = b.txs.map(rawTransactionJson)
      if (opts.prerender !== true && rendered.size > 256) rendered.delete(rendered.keys().next().value as string)
      rendered.set(k, r)
    }
    return r
  }

  const v2: Record<string, (q: Record<string, string>) => unknown> = {
    getMasterchainInfo: () => {
      const last = chain.masterchain.get(head)!.block.record.id
      const init = chain.masterchain.get(chain.base)!.block.record.id
      return {
        "@type": "blocks.masterchainInfo",
        last: renderV2BlockIdExt(last),
        state_root_hash: createHash("sha256").update(`state|${last.root_hash}`).digest("base64"),
        init: renderV2BlockIdExt(init),
        "@extra": extra()
      }
    },
    lookupBlock: (q) => ({ ...renderV2BlockIdExt(findBlock(q).record.id), "@extra": extra() }),
    getBlockHeader: (q) => blockHeaderJson(findBlock(q).record),
    shards: (q) => {
      const seqno = intParam(q, "seqno", true)!
      const mc = chain.masterchain.get(seqno)
      if (mc === undefined || seqno > head) throw notApplied(`-1:${FULL_SHARD}:${seqno}`)
      return { "@type": "blocks.shards", shards: mc.shardTops.map(renderV2BlockIdExt), "@extra": extra() }
    },
    getBlockTransactionsExt: (q) => {
      const b = findBlock(q)
      const count = intParam(q, "count", false) ?? 40
      if (count <= 0) throw new HttpError(422, "Validation error: count should be positive")
      if (count > MAX_PAGE) throw new HttpError(422, `Validation error: count should be less or equal ${MAX_PAGE}`)
      const afterLt = BigInt(intParam(q, "after_lt", false) ?? 0)
      const afterHash = hashParam(q["after_hash"])
      const afterAccount = afterHash === undefined ? "" : Buffer.from(afterHash, "base64").toString("hex").toUpperCase()
      const wc = b.record.id.workchain
      // liteserver cursor: first account >= after account, and for that very account only lts > after lt
      let start = 0
      if (afterAccount !== "") {
        const cursor = `${wc}:${afterAccount}`
        start = b.txs.findIndex((t) => t.account > cursor || (t.account === cursor && BigInt(t.lt) > afterLt))
        if (start < 0) start = b.txs.length
      } else if (afterLt > 0n) {
        start = b.txs.findIndex((t) => !(t.account === b.txs[0]!.account && BigInt(t.lt) <= afterLt))
        if (start < 0) start = b.txs.length
      }
      const all = renderedTxs(b)
      const page = all.slice(start, start + count)
      return {
        "@type": "blocks.transactionsExt",
        id: renderV2BlockIdExt(b.record.id),
        req_count: Math.min(count, 256),
        incomplete: page.length === count,
        transactions: page,
        "@extra": extra()
      }
    }
  }

  /**
   * A chain with states answers as of the masterchain block the request is about. The source asks, per bundle, for
   * the accounts its transactions touch, sorted, in batches of ACCOUNT_BATCH: a request that is such a batch of a
   * revealed block is about that block (of several with the same batch, the first after the one last answered for
   * it); any other request is about the newest revealed block whose accounts include all asked ones, or the head. An
   * address without a state by then is left out.
   */
  const batchKey = (addresses: ReadonlyArray<string>) =>
    createHash("sha256").update(addresses.join(",")).digest("base64")
  let batches: Map<string, Array<number>> | undefined
  const blocksOfBatch = (key: string): ReadonlyArray<number> => {
    if (batches === undefined) {
      batches = new Map()
      for (const [seqno, mc] of chain.masterchain) {
        const accounts = [...new Set([mc.block, ...mc.shardBlocks].flatMap((b) => b.txs.map((t) => t.account)))].sort()
        for (let i = 0; i < accounts.length; i += ACCOUNT_BATCH) {
          const k = batchKey(accounts.slice(i, i + ACCOUNT_BATCH))
          const list = batches.get(k)
          if (list === undefined) batches.set(k, [seqno])
          else list.push(seqno)
        }
      }
      for (const list of batches.values()) list.sort((x, y) => x - y)
    }
    return batches.get(key) ?? []
  }
  const answeredFor = new Map<string, number>()
  const statesOf = (states: NonNullable<ChainData["states"]>, addresses: ReadonlyArray<string>) => {
    const asked = addresses.map((a) => a.toUpperCase())
    const lists = asked.map((a) => states.get(a)).filter((l): l is ReadonlyArray<ChainAccountState> => l !== undefined)
    const key = batchKey(asked)
    const exact = blocksOfBatch(key).filter((mc) => mc <= head)
    const previous = answeredFor.get(key)
    let mc = exact.find((c) => previous === undefined || c > previous) ?? exact[exact.length - 1]
    if (mc === undefined) {
      const shortest = lists.reduce<ReadonlyArray<ChainAccountState> | undefined>(
        (m, l) => (m === undefined || l.length < m.length ? l : m),
        undefined
      )
      const has = (l: ReadonlyArray<ChainAccountState>, at: number) => atOrBefore(l, at)?.mcSeqno === at
      const all = (shortest ?? []).map((s) => s.mcSeqno).filter((at) => at <= head && lists.every((l) => has(l, at)))
      mc = all[all.length - 1] ?? head
    } else {
      answeredFor.set(key, mc)
    }
    return lists.flatMap((l) => {
      const at = atOrBefore(l, mc)
      if (at === undefined) return []
      const s = at.state
      // a nonexistent account: no state hash, no balance
      return [
        {
          address: at.account,
          account_state_hash: s?.hash ?? null,
          balance: s?.balance ?? null,
          extra_currencies: s === null ? null : {},
          status: s?.account_status ?? "nonexist",
          frozen_hash: s?.frozen_hash ?? null,
          data_hash: s?.data_hash ?? null,
          code_hash: s?.code_hash ?? null,
          last_transaction_hash: null,
          last_transaction_lt: null
        }
      ]
    })
  }

  const v3: Record<string, (q: URLSearchParams) => unknown> = {
    // the blocks a masterchain seqno commits, itself included, as ton-index-go filters on mc_block_seqno
    blocks: (q) => {
      const mcSeqno = Number(q.get("mc_seqno") ?? NaN)
      if (!Number.isInteger(mcSeqno)) throw new HttpError(422, "mc_seqno is required here")
      const limit = Math.min(1000, Number(q.get("limit") ?? 10))
      const offset = Number(q.get("offset") ?? 0)
      const mc = chain.masterchain.get(mcSeqno)
      const all = mc === undefined || mcSeqno > head ? [] : [mc.block, ...mc.shardBlocks]
      return { blocks: all.slice(offset, offset + limit).map((b) => renderV3Block(b.record)) }
    },
    accountStates: (q) => {
      const addresses = q.getAll("address")
      if (chain.states !== undefined) return { accounts: statesOf(chain.states, addresses), address_book: {} }
      const digest = (s: string) => createHash("sha256").update(s).digest("base64")
      return {
        accounts: addresses.map((a) => ({
          address: a.toUpperCase().replace(/^(-?\d+):/, "$1:"),
          account_state_hash: digest(`state|${a.toUpperCase()}`),
          balance: String(BigInt("0x" + createHash("sha256").update(a).digest("hex").slice(0, 12))),
          extra_currencies: {},
          status: "active",
          frozen_hash: null,
          data_hash: digest(`data|${a.toUpperCase()}`),
          code_hash: digest(`code|${a.toUpperCase()}`),
          last_transaction_hash: null,
          last_transaction_lt: null
        })),
        address_book: {}
      }
    }
  }

  const send = (res: http.ServerResponse, status: number, body: string) => {
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
    res.end(body)
  }

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const at = now()
    const url = new URL(req.url ?? "/", "http://127.0.0.1")
    const v2m = /^\/api\/v2\/([A-Za-z]+)$/.exec(url.pathname)
    const v3m = /^\/api\/v3\/([A-Za-z]+)$/.exec(url.pathname)
    const endpoint = v2m ? v2m[1]! : v3m ? `v3/${v3m[1]!}` : url.pathname
    const query = Object.fromEntries(url.searchParams)
    const apiKey = (req.headers["x-api-key"] as string | undefined) ?? url.searchParams.get("api_key") ?? undefined
    const n = (counters.get(endpoint) ?? 0) + 1
    counters.set(endpoint, n)
    const fault = faultFor(plan, endpoint, n)
    const log = (status: number) => requests.push({ at, endpoint, query, status, fault: fault?.kind, apiKey })
    if (allowed !== undefined && !allowed(apiKey ?? "", at)) {
      log(429)
      return send(res, 429, JSON.stringify({ ok: false, error: "Ratelimit exceed", code: 429 }))
    }
    if (opts.latencyMs) await sleep(opts.latencyMs)

    if (fault !== undefined) {
      switch (fault.kind) {
        case "rate_limit":
          log(429)
          return send(res, 429, JSON.stringify({ ok: false, error: "Ratelimit exceeded", code: 429 }))
        case "server_error": {
          const status = fault.status ?? 500
          log(status)
          return send(
            res,
            status,
            JSON.stringify({ ok: false, error: "LITE_SERVER_NOTREADY: try again", code: status })
          )
        }
        case "malformed":
          log(200)
          return send(res, 200, "<html><body>502 Bad Gateway</body></html>")
        case "missing_field":
          log(200)
          return send(res, 200, JSON.stringify({ ok: true, result: { "@type": "error.partial" } }))
        case "not_applied":
          log(500)
          return send(res, 500, JSON.stringify({ ok: false, error: notApplied("lagging").message, code: 500 }))
        case "reset":
          log(0)
          req.socket.destroy()
          return
        case "slow":
          await sleep(fault.delayMs ?? 1000)
          break
        case "truncated":
          break
      }
    }

    let status = 200
    let body: string
    try {
      if (opts.apiKey !== undefined && apiKey !== opts.apiKey) throw new HttpError(401, "API key does not exist")
      if (v2m && v2[v2m[1]!]) {
        body = JSON.stringify({ ok: true, result: v2[v2m[1]!]!(query) })
      } else if (v3m && v3[v3m[1]!]) {
        body = JSON.stringify(v3[v3m[1]!]!(url.searchParams))
      } else {
        throw new HttpError(404, "Not Found")
      }
    } catch (e) {
      if (!(e instanceof HttpError)) throw e
      status = e.status
      body = v3m
        ? JSON.stringify({ error: e.message })
        : JSON.stringify({ ok: false, error: e.message, code: e.status })
    }
    log(status)
    if (fault?.kind === "truncated") {
      const cut = body.slice(0, Math.max(1, Math.floor(body.length / 2)))
      return send(res, status, cut)
    }
    send(res, status, body)
  }

  const server = http.createServer((req, res) => {
    inFlight += 1
    maxInFlight = Math.max(maxInFlight, inFlight)
    res.once("close", () => void (inFlight -= 1))
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) send(res, 500, JSON.stringify({ ok: false, error: String(e), code: 500 }))
    })
  })
  server.keepAliveTimeout = 5_000
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  const timer =
    opts.reveal?.everyMs !== undefined
      ? setInterval(() => {
          if (head < chain.last) reveal(head + 1)
        }, opts.reveal.everyMs)
      : undefined
  timer?.unref()

  return {
    url: `http://127.0.0.1:${port}`,
    chain,
    requests,
    head: () => head,
    advance: (k = 1) => reveal(Math.min(chain.last, head + k)),
    setFaults: (p) => {
      plan = p
      counters.clear()
    },
    clearRequests: () => {
      requests.length = 0
      maxInFlight = inFlight
    },
    maxInFlight: () => maxInFlight,
    revealedAt: (seqno) => revealed.get(seqno),
    requestCounts: () => {
      const out: Record<string, { all: number; rateLimited: number }> = {}
      for (const r of requests) {
        const c = (out[r.endpoint] ??= { all: 0, rateLimited: 0 })
        c.all += 1
        if (r.status === 429) c.rateLimited += 1
      }
      return out
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (timer) clearInterval(timer)
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
