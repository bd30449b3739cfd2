// The producer's partitioner against kafkajs's DefaultPartitioner (the reference): the same murmur2 for the project's
// keys (every transaction record's account of a generated chain with the recorded real transactions, the bundle
// records' seqnos) and for edge cases (every key length 0..80 as bytes and as text, non-ASCII text, random bytes);
// the same partition for every message kind (keyed, an explicit partition, and keyless, left to kafkajs's own); and
// the producer's records land where kafkajs's partitioner would put them for partition counts 1..64.
import { Partitioners, type PartitionerArgs, type PartitionMetadata } from "kafkajs"
import { describe, expect, it } from "vitest"
import { completeBundle, PublishHistory } from "../../../src/kafka/transactions.js"
import { kafkajsMurmur2, keyPartitioner, murmur2 } from "../../../src/kafka/partitioner.js"
import { assembleBundle, pipelineDecode, prepare } from "../../../src/producer/assemble.js"
import { generateChain } from "../../../tools/fake/generate.js"
import { rawBundle } from "../../support/pipeline/chainUpstream.js"

const reference = kafkajsMurmur2()

const chain = generateChain({
  seed: 5,
  mcBlocks: 8,
  txPerBlock: 8,
  initialShards: 2,
  maxShards: 4,
  splitChance: 0.3,
  mergeChance: 0.3,
  maxBlocksPerShard: 3,
  fixtures: true,
  network: "mainnet",
  cacheAboveTxs: 0
})

/** The keys the producer sends: each transaction record's account, each bundle record's seqno (made once). */
let keysMade: Array<string> | undefined
const projectKeys = (): Array<string> => (keysMade ??= makeKeys())
const makeKeys = (): Array<string> => {
  const history = new PublishHistory()
  const keys: Array<string> = []
  for (let s = chain.first; s <= chain.last; s++) {
    const prepared = prepare(assembleBundle(rawBundle(chain, s)!, chain.network, pipelineDecode))
    const done = completeBundle(prepared.mcSeqno, prepared.drafts, prepared.accountStates, history)
    keys.push(String(prepared.bundle!.key), ...done.records.map((r) => String(r.key)))
  }
  return keys
}

/** A deterministic byte source (xorshift32), so a failure names a reproducible key. */
const bytes = (seed: number, length: number): Buffer => {
  const out = Buffer.alloc(length)
  let x = seed | 1
  for (let i = 0; i < length; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    out[i] = x & 0xff
  }
  return out
}

const metadata = (n: number, leaderless: ReadonlyArray<number> = []): Array<PartitionMetadata> =>
  Array.from({ length: n }, (_, i) => ({
    partitionErrorCode: 0,
    partitionId: i,
    leader: leaderless.includes(i) ? -1 : 1,
    replicas: [1],
    isr: [1]
  }))

describe("producer partitioner", () => {
  it("hashes the project's keys as kafkajs's murmur2 does", () => {
    const keys = projectKeys()
    expect(keys.length).toBeGreaterThan(60)
    expect(new Set(keys.map((k) => k.length)).size).toBeGreaterThan(1)
    for (const k of keys) {
      expect(murmur2(k), k).toBe(reference(k))
      expect(murmur2(Buffer.from(k)), k).toBe(reference(Buffer.from(k)))
    }
  })

  it("hashes keys of every length, random bytes and non-ASCII text as kafkajs's murmur2 does", () => {
    for (let length = 0; length <= 80; length++) {
      for (let seed = 1; seed <= 20; seed++) {
        const b = bytes(seed * 131 + length, length)
        expect(murmur2(b), b.toString("hex")).toBe(reference(b))
        const ascii = b.toString("hex").slice(0, length)
        expect(murmur2(ascii), ascii).toBe(reference(ascii))
      }
    }
    for (const k of ["é", "aé", "abcé", "abcdé", "0:ÀBCD", "✓✓✓", "𝄞", "key-𝄞-tail", "\u007f\u0080", ""]) {
      expect(murmur2(k), k).toBe(reference(k))
    }
  })

  it("picks kafkajs's partition for keyed, explicitly placed and keyless messages", () => {
    const keys = projectKeys()
    for (const n of [1, 2, 3, 6, 7, 12, 64]) {
      const ours = keyPartitioner()
      const theirs = Partitioners.DefaultPartitioner()
      const partitionMetadata = metadata(n)
      for (const key of keys) {
        const args: PartitionerArgs = { topic: "t", partitionMetadata, message: { key, value: "v" } }
        expect(ours(args), `${key} of ${n}`).toBe(theirs(args))
        const buf: PartitionerArgs = { topic: "t", partitionMetadata, message: { key: Buffer.from(key), value: "v" } }
        expect(ours(buf)).toBe(theirs(buf))
      }
      const placed: PartitionerArgs = { topic: "t", partitionMetadata, message: { key: "k", value: "v", partition: n - 1 } }
      expect(ours(placed)).toBe(n - 1)
    }
  })

  it("leaves keyless messages to kafkajs's round robin over partitions with a leader", () => {
    const ours = keyPartitioner()
    const partitionMetadata = metadata(6, [1, 4])
    const seen = new Set<number>()
    let previous: number | undefined
    for (let i = 0; i < 12; i++) {
      const p = ours({ topic: "t", partitionMetadata, message: { value: "v" } })
      expect([0, 2, 3, 5]).toContain(p)
      if (previous !== undefined) expect(p).toBe([0, 2, 3, 5][([0, 2, 3, 5].indexOf(previous) + 1) % 4])
      previous = p
      seen.add(p)
    }
    expect(seen.size).toBe(4)
  })
})
