// An example subscriber of `<prefix>.<network>.transactions.v1` with kafkajs, as docs/subscribers.md describes it:
// read_committed (a masterchain block's transactions appear all at once or not at all), a consumer group (so several
// copies share the partitions and a restarted one resumes after its last committed offset), and a first start from a
// masterchain seqno (records of earlier blocks are skipped by their header, without parsing the value).
// Each record's value is the toncenter v3 `Transaction` JSON; the key is the account in raw form.
//
//   npx tsx examples/subscriber.ts --brokers 127.0.0.1:9092 --topic ton.mainnet.transactions.v1 --group my-app \
//     [--from-seqno 50000000] [--not-before-ms 1732300000000]
//
// It prints one line per transaction: mc seqno, account, hash, lt.
import { pathToFileURL } from "node:url"
import { parseArgs } from "node:util"
import { Decoder as ZstdDecoder, Encoder as ZstdEncoder } from "@toondepauw/node-zstd"
import kafkajs, { CompressionTypes, Kafka, logLevel, type IHeaders } from "kafkajs"
import lz4 from "lz4-napi"

/**
 * kafkajs reads gzip alone; the exporter writes zstd by default (KAFKA_COMPRESSION) and may write lz4. A kafkajs
 * subscriber registers those codecs once, before its consumer fetches (Kafka's LZ4 is the LZ4 frame format).
 */
export const registerCodecs = (): void => {
  const zstdDecoder = new ZstdDecoder()
  const zstdEncoder = new ZstdEncoder(3)
  kafkajs.CompressionCodecs[CompressionTypes.ZSTD] = () => ({
    compress: async (encoder: { buffer: Buffer }) => zstdEncoder.encodeSync(encoder.buffer),
    decompress: async (buffer: Buffer) => zstdDecoder.decodeSync(buffer)
  })
  kafkajs.CompressionCodecs[CompressionTypes.LZ4] = () => ({
    compress: async (encoder: { buffer: Buffer }) => lz4.compressFrameSync(encoder.buffer),
    decompress: async (buffer: Buffer) => lz4.decompressFrameSync(buffer)
  })
}

export interface TransactionRecord {
  /** The account in raw form (`0:ABC…`), the record's key. */
  readonly account: string
  /** The record's value as it arrived: toncenter v3 `Transaction` JSON. */
  readonly value: Buffer
  readonly mcSeqno: number
  /** `workchain:SHARD:seqno` of the block holding the transaction. */
  readonly block: string
  readonly partition: number
  readonly offset: string
}

export interface SubscriberOptions {
  readonly brokers: ReadonlyArray<string>
  readonly topic: string
  readonly groupId: string
  /** On a group's first start: deliver transactions of this masterchain block and later ones only. */
  readonly fromMcSeqno?: number
  /**
   * On a group's first start: begin reading at the records written at or after this time (ms since the epoch)
   * instead of at the start of each partition. Any time before the block at `fromMcSeqno` was published is correct
   * (its `gen_utime` minus a few minutes is a safe choice when the exporter follows the chain); the header check
   * still skips earlier blocks.
   */
  readonly notBeforeMs?: number
  /** Called once per record, in partition order; the offset is committed after it returns. */
  readonly onTransaction: (tx: TransactionRecord) => Promise<void>
}

export interface Subscriber {
  readonly stop: () => Promise<void>
}

const header = (headers: IHeaders | undefined, name: string): string | undefined => {
  const v = headers?.[name]
  const first = Array.isArray(v) ? v[0] : v
  return first === undefined ? undefined : first.toString()
}

export const SUPPORTED_SCHEMA_VERSION = "1"

/** A group's first offsets by time, or none when it already committed offsets (it resumes after them). */
const offsetsAt = async (kafka: Kafka, options: SubscriberOptions) => {
  const admin = kafka.admin()
  await admin.connect()
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        const committed = await admin.fetchOffsets({ groupId: options.groupId, topics: [options.topic] })
        if (!committed.every((t) => t.partitions.every((p) => p.offset === "-1"))) return []
        const byTime = await admin.fetchTopicOffsetsByTimestamp(options.topic, options.notBeforeMs)
        return byTime.map((p) => ({ partition: p.partition, offset: p.offset }))
      } catch (e) {
        // A coordinator still loading (a broker just started) answers with a retriable error.
        if (attempt >= 20 || !(e as { retriable?: boolean }).retriable) throw e
        await new Promise((r) => setTimeout(r, 500))
      }
    }
  } finally {
    await admin.disconnect()
  }
}

export const startSubscriber = async (options: SubscriberOptions): Promise<Subscriber> => {
  registerCodecs()
  const kafka = new Kafka({ clientId: options.groupId, brokers: [...options.brokers], logLevel: logLevel.NOTHING })

  // Where a group without committed offsets begins: by time when asked (per partition), else at the start.
  const seekTo = options.notBeforeMs === undefined ? [] : await offsetsAt(kafka, options)

  // readUncommitted false is read_committed: records of open or aborted transactions are never delivered.
  const consumer = kafka.consumer({ groupId: options.groupId, readUncommitted: false })
  await consumer.connect()
  await consumer.subscribe({ topic: options.topic, fromBeginning: true })
  await consumer.run({
    // The offset is committed only after the handler returned: a crash repeats at most the uncommitted records.
    autoCommit: true,
    eachMessage: async ({ partition, message }) => {
      const version = header(message.headers, "schema_version")
      if (version !== SUPPORTED_SCHEMA_VERSION) {
        throw new Error(`record at ${partition}/${message.offset} has schema_version ${version}; this reader knows 1`)
      }
      const mcSeqno = Number(header(message.headers, "mc_seqno"))
      if (options.fromMcSeqno !== undefined && mcSeqno < options.fromMcSeqno) return
      if (message.value === null || message.key === null) return
      await options.onTransaction({
        account: message.key.toString("utf8"),
        value: message.value,
        mcSeqno,
        block: header(message.headers, "block") ?? "",
        partition,
        offset: message.offset
      })
    }
  })
  for (const s of seekTo) consumer.seek({ topic: options.topic, partition: s.partition, offset: s.offset })
  return { stop: () => consumer.disconnect() }
}

const main = async () => {
  const { values } = parseArgs({
    options: {
      brokers: { type: "string", default: "127.0.0.1:9092" },
      topic: { type: "string", default: "ton.mainnet.transactions.v1" },
      group: { type: "string", default: "example-subscriber" },
      "from-seqno": { type: "string" },
      "not-before-ms": { type: "string" }
    }
  })
  const subscriber = await startSubscriber({
    brokers: values.brokers.split(","),
    topic: values.topic,
    groupId: values.group,
    ...(values["from-seqno"] === undefined ? {} : { fromMcSeqno: Number(values["from-seqno"]) }),
    ...(values["not-before-ms"] === undefined ? {} : { notBeforeMs: Number(values["not-before-ms"]) }),
    onTransaction: async (tx) => {
      const v = JSON.parse(tx.value.toString("utf8")) as { hash: string; lt: string }
      process.stdout.write(`${tx.mcSeqno} ${tx.account} ${v.hash} ${v.lt}\n`)
    }
  })
  const stop = () => void subscriber.stop().then(() => process.exit(0))
  process.once("SIGINT", stop)
  process.once("SIGTERM", stop)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) void main()
