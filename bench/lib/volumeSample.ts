// What the API benchmark's volume mode requests and how it times one connection: the basechain blocks of a sampled
// masterchain block that its v2 pages ask for, and a sequential GET on one keep-alive node:http socket (beside fetch,
// whose client, undici, adds ~0.6 ms per request against a raw keep-alive socket).
import { Agent, get } from "node:http"

export interface ShardBlockRow {
  readonly workchain: number
  readonly shard: string
  readonly seqno: number
  readonly tx_count: number
}

/**
 * Up to `perMc` distinct basechain blocks with transactions among a masterchain block's shard blocks (its
 * `masterchainBlockShards` answer), starting at index `seqno` modulo their count and going on in order; perMc 1 is the
 * one block the volume bench has always picked for a masterchain block.
 */
export const v2BlocksOf = (
  seqno: number,
  blocks: ReadonlyArray<ShardBlockRow>,
  perMc: number
): Array<ShardBlockRow> => {
  const pick = blocks.filter((b) => b.workchain === 0 && b.tx_count > 0)
  const n = Math.min(Math.max(0, Math.floor(perMc)), pick.length)
  return Array.from({ length: n }, (_, k) => pick[(seqno + k) % pick.length]!)
}

/**
 * A GET client on one keep-alive socket (node:http, an agent of one socket kept open between requests): each call
 * resolves with the status and the whole body once its last byte arrived; `sockets()` counts the sockets it opened.
 */
export const keepAliveGetter = (
  base: string
): {
  readonly get: (path: string) => Promise<{ status: number; body: Buffer }>
  readonly sockets: () => number
  readonly close: () => void
} => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  let opened = 0
  const create = agent.createConnection.bind(agent)
  agent.createConnection = ((...args: Parameters<typeof create>) => {
    opened++
    return create(...args)
  }) as typeof agent.createConnection
  return {
    get: (path) =>
      new Promise((resolve, reject) => {
        const req = get(base + path, { agent }, (res) => {
          const chunks: Array<Buffer> = []
          res.on("data", (c: Buffer) => chunks.push(c))
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }))
          res.on("error", reject)
        })
        req.on("error", reject)
      }),
    sockets: () => opened,
    close: () => agent.destroy()
  }
}

/** The endpoints the volume mode can load (BENCH_ENDPOINT). */
export const VOLUME_ENDPOINTS = ["v2", "v3", "blocks", "shards"] as const
export type VolumeEndpoint = (typeof VOLUME_ENDPOINTS)[number]

/** BENCH_ENDPOINT as a list: comma-separated names of VOLUME_ENDPOINTS; unset or empty is v2 and v3. */
export const volumeEndpoints = (raw: string | undefined): Array<VolumeEndpoint> => {
  const names = (raw ?? "").split(",").map((x) => x.trim()).filter((x) => x !== "")
  if (names.length === 0) return ["v2", "v3"]
  for (const n of names)
    if (!(VOLUME_ENDPOINTS as ReadonlyArray<string>).includes(n))
      throw new Error(`BENCH_ENDPOINT: ${n} is none of ${VOLUME_ENDPOINTS.join(", ")}`)
  return names as Array<VolumeEndpoint>
}
