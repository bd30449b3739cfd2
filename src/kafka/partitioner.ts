/**
 * The producer's partitioner: kafkajs's DefaultPartitioner (Java's murmur2 of the key, modulo the topic's partitions)
 * with the hash in 32-bit integer arithmetic. kafkajs computes it through its 64-bit Long class, several objects per
 * four bytes of key, for every record of the transactions topic. Invariant: every message goes to the partition
 * kafkajs's own partitioner picks (test/unit/kafka/partitioner.test.ts compares them); a message without key or
 * partition is left to kafkajs's partitioner itself.
 */
import { createRequire } from "node:module"
import { Partitioners, type ICustomPartitioner, type PartitionerArgs } from "kafkajs"

const require = createRequire(import.meta.url)

const M = 0x5bd1e995
const SEED = 0x9747b28c

/** One byte of the key: a string is hashed as its UTF-8 bytes (kafkajs's `Buffer.from(String(key))`). */
const mix = (h: number, k: number): number => {
  k = Math.imul(k, M)
  k ^= k >>> 24
  k = Math.imul(k, M)
  return Math.imul(h, M) ^ k
}

/** The key's last `rest` (0-3) bytes, `b0` first, and the final avalanche: a signed 32-bit hash. */
const finish = (h: number, rest: number, b0: number, b1: number, b2: number): number => {
  switch (rest) {
    case 3:
      h ^= b2 << 16
    // falls through
    case 2:
      h ^= b1 << 8
    // falls through
    case 1:
      h ^= b0
      h = Math.imul(h, M)
  }
  h ^= h >>> 13
  h = Math.imul(h, M)
  h ^= h >>> 15
  return h | 0
}

const hashBytes = (data: Uint8Array): number => {
  const length = data.length
  let h = SEED ^ length
  const end = length & ~3
  for (let i = 0; i < end; i += 4) {
    h = mix(h, data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24))
  }
  return finish(h, length & 3, data[end] ?? 0, data[end + 1] ?? 0, data[end + 2] ?? 0)
}

/** An ASCII string's bytes are its char codes: hashed without making a Buffer (the keys are raw account addresses). */
const hashAscii = (s: string): number | undefined => {
  const length = s.length
  let h = SEED ^ length
  const end = length & ~3
  for (let i = 0; i < end; i += 4) {
    const a = s.charCodeAt(i)
    const b = s.charCodeAt(i + 1)
    const c = s.charCodeAt(i + 2)
    const d = s.charCodeAt(i + 3)
    if ((a | b | c | d) > 0x7f) return undefined
    h = mix(h, a | (b << 8) | (c << 16) | (d << 24))
  }
  for (let i = end; i < length; i++) if (s.charCodeAt(i) > 0x7f) return undefined
  return finish(h, length & 3, s.charCodeAt(end) | 0, s.charCodeAt(end + 1) | 0, s.charCodeAt(end + 2) | 0)
}

/** Java's (and kafkajs's) murmur2 of a key: a signed 32-bit integer. */
export const murmur2 = (key: Buffer | string): number =>
  Buffer.isBuffer(key) ? hashBytes(key) : (hashAscii(String(key)) ?? hashBytes(Buffer.from(String(key))))

/** kafkajs's own murmur2 (the reference of the differential test). */
export const kafkajsMurmur2 = (): ((key: Buffer | string) => number) =>
  require("kafkajs/src/producer/partitioners/default/murmur2.js") as (key: Buffer | string) => number

/** The producer's `createPartitioner`: kafkajs's DefaultPartitioner, keyed messages hashed by `murmur2` above. */
export const keyPartitioner: ICustomPartitioner = () => {
  const library = Partitioners.DefaultPartitioner()
  return (args: PartitionerArgs) => {
    const { message, partitionMetadata } = args
    if (message.partition !== null && message.partition !== undefined) return message.partition
    if (message.key !== null && message.key !== undefined) {
      return (murmur2(message.key) & 0x7fffffff) % partitionMetadata.length
    }
    return library(args)
  }
}
