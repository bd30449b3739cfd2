// Every setting of the exporter, grouped by concern, each with its env name and default, declared once, and every
// default derived from other settings. Invariant: there is one reader, the Effect `Config` (read inside layers);
// `loadConfig(env)` runs that same Config for scripts and tests, so both accept and reject exactly the same values,
// and every rejection names the env key that caused it.
import { Config, ConfigError, ConfigProvider, Effect, Either, Redacted } from "effect"
import { availableParallelism } from "node:os"

export type Network = "mainnet" | "testnet"
export type ProducerMode = "backfill" | "follow" | "resume"
export type LogLevel = "trace" | "debug" | "info" | "warn" | "error" | "fatal"
export type KafkaCompression = "none" | "gzip" | "lz4" | "zstd"
export const KAFKA_COMPRESSIONS: ReadonlyArray<KafkaCompression> = ["none", "gzip", "lz4", "zstd"]
/** Young generation of a decode worker's heap, MB: the smallest measured not to cost CPU (src/producer/DecodePool.ts). */
export const DEFAULT_DECODE_YOUNG_MB = 16
/**
 * How far V8 lets a producer isolate's old generation grow past what its last full collection kept, percent
 * (src/ops/heapGrowth.ts); 0: V8's own factor (up to 4x), under which the producer's heap grows with the run's length.
 * Bounded by default at 100 since 2026-11-29: on the 50k chain with states, with committed bundles' bytes freed at
 * once (which a bound turns on), the producer's peak RSS was 285-295 MB in all five runs against 305-317 MB at 0, and its
 * CPU no higher (0.446 against 0.527 ms/tx after the clock at the medians; V8's threads 0.117 against 0.148); 50 gave
 * 267 MB for more GC CPU (BENCHMARKS.md, "the producer's heap bound on by default"). Earlier, before the decode
 * worker's allocations and the Kafka path were cut, 50 had cost ~+20% CPU (BENCHMARKS.md, "the producer within 300
 * MB", "the producer's committed bundles freed at once").
 */
export const DEFAULT_PRODUCER_HEAP_GROWTH_PERCENT = 100
/** PRODUCER_INFLIGHT_BYTES: a quiet chain's eight prefetched bundles (~1 MB each) stay well inside it. */
export const DEFAULT_PRODUCER_INFLIGHT_BYTES = 64 * 1024 * 1024
/**
 * The same bound for the consumer's heap (src/ops/heapGrowth.ts); 0: V8's own factor. The consumer holds a batch's
 * decoded bundles for seconds, so they are promoted and die in the old generation, which V8 lets grow to several
 * times what survives (BENCHMARKS.md, "the consumer's own memory"). Bounded by default since the batch's insert bodies
 * are spooled as they are encoded (src/clickhouse/spool.ts): with both, the consumer's own peak on the 50k chain is
 * 280-295 MB against 325-354 without either, for ~14% more of its CPU; 50: 269-274 MB for ~17%; 0 with the spool:
 * 313-329 MB at the same CPU (BENCHMARKS.md, "the consumer's insert bodies spooled as they are encoded").
 */
export const DEFAULT_CONSUMER_HEAP_GROWTH_PERCENT = 100
/**
 * RocksDB block cache of `account_lookups_kv` in the embedded engine, bytes. RocksDB's own 32 MiB holds about half of
 * the table of the 200,000-transaction store (212k rows, ~61 MB of 4 KiB blocks once decompressed), so a random page's
 * lookups decompress ~45 ZSTD blocks; this holds that table twice over (BENCHMARKS.md, "the lookups' block cache").
 */
export const DEFAULT_LOOKUPS_CACHE_BYTES = 128 * 1024 * 1024
/** A RocksDB block codec of the embedded engine's key-value tables; `zstd` is the engine's own. */
export type TableCompression = "zstd" | "lz4" | "none"
export const TABLE_COMPRESSIONS: ReadonlyArray<TableCompression> = ["zstd", "lz4", "none"]
/**
 * Codec of `v3_pages`' blocks (sql/0131). An uncached v3 page reads its block's row (~390 KB of lines, one block of
 * its own) through RocksDB: LZ4 decompresses it for ~0.2 ms less CPU than ZSTD in the statement alone, which the
 * API's own requests (~4 ms each) do not show apart from their noise, for a table 1.75x as large (BENCHMARKS.md,
 * "the page rows' codec"); so the engine's own ZSTD stays the default.
 */
export const DEFAULT_V3_PAGES_COMPRESSION: TableCompression = "zstd"
/**
 * Values of the page tables (`v3_pages`, `v2_pages`) from this many bytes on are kept in RocksDB's blob files. The
 * rows are tens to hundreds of KB and their keys (the engine's little-endian binary) fall all over the key range, so
 * without blobs each compaction of a flush into the last level rewrites most of the table: its cost per transaction
 * grows with the store (BENCHMARKS.md, "the consumer's inserts as the store grows").
 */
export const DEFAULT_PAGES_MIN_BLOB_BYTES = 4096
/**
 * Bits per key of the Bloom filters RocksDB writes into every new table file of `v3_pages` (sql/0131) and
 * `account_lookups_kv` (sql/0142) in the embedded engine; 0 writes none (RocksDB's own). Without filters a point read
 * reads and decompresses a data block of every file whose key range holds its key, and these tables' keys (little-endian
 * seqnos, hashes, accounts) put every file's range over the whole table: on the 1M store as ingested a page's row read
 * 3.5 blocks of ~400 KB and its lookups 2.6 blocks a key. With 10 bits (~1% false positives, ~1.2 bytes a key) a read
 * skips every file that does not hold its key (BENCHMARKS.md, "An uncached v3 page on the 1M store").
 */
export const DEFAULT_KV_BLOOM_BITS = 10
/** The codec measured cheapest for the pipeline (BENCHMARKS.md, "End-to-end ingest"). */
export const DEFAULT_KAFKA_COMPRESSION: KafkaCompression = "zstd"

export interface KafkaSettings {
  /** Empty: start the project's own local broker on 127.0.0.1:port with data in dataDir. */
  readonly brokers: ReadonlyArray<string>
  readonly port: number
  readonly dataDir: string
  readonly clientId: string
  readonly topicPrefix: string
  readonly partitions: number
  /** Partitions of the bundle topic: bundle s goes to partition s mod this (1 keeps one total order). */
  readonly blockPartitions: number
  /** Replicas of each topic the project creates (1 for the local single broker). */
  readonly replicationFactor: number
  readonly maxMessageBytes: number
  /** Record-batch codec of everything the producer publishes (consumers read every codec). */
  readonly compression: KafkaCompression
  /** JVM options of the local broker after the project's own (a later option wins); none by default. */
  readonly localJvmOptions: ReadonlyArray<string>
}

export interface ClickHouseSettings {
  /** Undefined: embedded chdb engine on dataDir. */
  readonly url: string | undefined
  readonly user: string
  /** Redacted: it never shows in logs, errors or printed configuration. */
  readonly password: Redacted.Redacted<string>
  readonly database: string
  readonly dataDir: string
  /** A cluster of CLICKHOUSE_URL's server: migrations create replicated local tables and distributed ones on it. */
  readonly cluster: string
  /**
   * Embedded engine only: bytes of RocksDB's block cache for `account_lookups_kv` (sql/0142), the table every uncached
   * v3 page multi-gets from; 0 leaves RocksDB's own (32 MiB per table). Filled only by reads, up to this.
   */
  readonly lookupsCacheBytes: number
  /**
   * Embedded engine only: the codec of the blocks RocksDB writes for `v3_pages` (sql/0131) from the next start on;
   * blocks already written keep theirs until compaction rewrites them (README, "Converting v3_pages").
   */
  readonly v3PagesCompression: TableCompression
  /**
   * Embedded engine only: values of `v3_pages` and `v2_pages` of at least this many bytes are written to RocksDB's
   * blob files from the next start on (rows already written move there when a compaction rewrites them); 0 keeps them
   * in the table files.
   */
  readonly pagesMinBlobBytes: number
  /**
   * Embedded engine only: bits per key of the Bloom filters in the table files RocksDB writes for `v3_pages` and
   * `account_lookups_kv` from the next start on (0: none); files already written get them when a compaction rewrites
   * them (sql/0145 compacts both tables once).
   */
  readonly kvBloomBits: number
}

export interface ToncenterSettings {
  /** Undefined: the local fake toncenter serving bundled recorded data. */
  readonly url: string | undefined
  /** Redacted: it never shows in logs, errors or printed configuration. */
  readonly apiKey: Redacted.Redacted<string> | undefined
  /** Undefined: derived from `url` by the upstream adapter. */
  readonly v3Url: string | undefined
  readonly rps: number
  /** v3 base to read block headers from (one request per masterchain block); undefined: v2 getBlockHeader. */
  readonly v3BlocksUrl: string | undefined
  /** Further v2 endpoints, each with its own key and rate (default: 10 with a key, 1 without). */
  readonly endpoints: ReadonlyArray<ToncenterEndpointSetting>
  readonly concurrency: number
  readonly timeoutMs: number
  readonly retries: number
}

export interface ToncenterEndpointSetting {
  readonly url: string
  readonly apiKey: string | undefined
  readonly rps: number | undefined
}

export interface ProducerSettings {
  readonly mode: ProducerMode
  readonly from: number | undefined
  readonly to: number | undefined
  /** Worker threads that decode bundles; 0 decodes on the main thread. */
  readonly decodeWorkers: number
  /** Young generation of each decode worker's V8 heap, MB: memory against the CPU of its scavenges. */
  readonly decodeYoungMb: number
  /** Blocks before PRODUCER_FROM a backfill fetches (not publishes) to learn trace history; 0 learns none. */
  readonly learnBlocks: number
  /** Old-generation growth past the last full collection's survivors, percent, every isolate; 0 leaves V8's own. */
  readonly heapGrowthPercent: number
  /** Most records (a bundle's record and one per transaction) per Kafka transaction: what the producer holds to send. */
  readonly transactionRecords: number
  /** Bytes of fetched bundles held before their publish; 0: the prefetch count alone bounds them. */
  readonly inflightBytes: number
}

export interface ConsumerSettings {
  readonly group: string
  readonly batchRows: number
  readonly batchBytes: number
  readonly fetchBytes: number
  readonly batchMs: number
  readonly sessionTimeoutMs: number
  readonly heapGrowthPercent: number
}

export interface ApiSettings {
  readonly host: string
  readonly port: number
  /** Empty: the API is open to everyone. */
  readonly keys: ReadonlyArray<string>
  /** Requests per second per key; 0 turns rate limiting off. */
  readonly rateLimit: number
  /** Byte budget of the rendered-response cache; 0 turns it off. */
  readonly cacheBytes: number
  /** Embedded ClickHouse sessions reads are spread over. */
  readonly readConnections: number
  /** Concurrent page reads of one kind that share one statement (1: each alone). */
  readonly readSharing: number
  /** Shared statements of one kind running at once. */
  readonly readSharedStatements: number
  /** Reads of one kind waiting before a statement goes out beside a running one. */
  readonly readSharedAfter: number
}

export interface SqlSettings {
  readonly host: string
  /** 0: no SQL endpoint. */
  readonly port: number
  /** Both empty: no credentials asked (allowed on loopback only). */
  readonly user: string
  readonly password: string
}

export interface AppConfig {
  readonly network: Network
  readonly kafka: KafkaSettings
  readonly clickhouse: ClickHouseSettings
  readonly toncenter: ToncenterSettings
  readonly producer: ProducerSettings
  readonly consumer: ConsumerSettings
  readonly api: ApiSettings
  readonly metrics: { readonly port: number }
  readonly sql: SqlSettings
  readonly log: { readonly level: LogLevel }
}

type Parse<A> = (raw: string) => Either.Either<A, string>

/** One env setting: its key, its default as the user would type it, its meaning, and how to read it. */
export interface Setting<A> {
  readonly env: string
  readonly default: string
  readonly doc: string
  readonly parse: Parse<A>
}

const setting = <A>(env: string, def: string, doc: string, parse: Parse<A>): Setting<A> => ({
  env,
  default: def,
  doc,
  parse
})

const text: Parse<string> = (raw) => Either.right(raw)

const nonEmpty: Parse<string> = (raw) =>
  raw.trim() === "" ? Either.left("must not be empty") : Either.right(raw.trim())

const optionalText: Parse<string | undefined> = (raw) => Either.right(raw.trim() === "" ? undefined : raw.trim())

const int =
  (min: number, max: number): Parse<number> =>
  (raw) => {
    const s = raw.trim()
    if (!/^-?\d+$/.test(s)) return Either.left(`expected an integer, got ${JSON.stringify(raw)}`)
    const n = Number(s)
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      return Either.left(`expected an integer in [${min}, ${max}], got ${s}`)
    }
    return Either.right(n)
  }

const optionalInt =
  (min: number, max: number): Parse<number | undefined> =>
  (raw) =>
    raw.trim() === "" ? Either.right(undefined) : int(min, max)(raw)

const port = int(1, 65535)

const oneOf =
  <const L extends string>(...values: ReadonlyArray<L>): Parse<L> =>
  (raw) => {
    const s = raw.trim().toLowerCase()
    return (values as ReadonlyArray<string>).includes(s)
      ? Either.right(s as L)
      : Either.left(`expected one of ${values.join("|")}, got ${JSON.stringify(raw)}`)
  }

const list: Parse<ReadonlyArray<string>> = (raw) =>
  Either.right(
    raw
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "")
  )

/** Whitespace-separated command-line options, each starting with "-" (JVM options: no shell quoting). */
const optionList: Parse<ReadonlyArray<string>> = (raw) => {
  const options = raw.split(/\s+/).filter((s) => s !== "")
  const bad = options.find((o) => !o.startsWith("-"))
  return bad === undefined ? Either.right(options) : Either.left(`"${bad}" is not an option (options start with "-")`)
}

const hostPortList: Parse<ReadonlyArray<string>> = (raw) => {
  const items = raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
  const bad = items.find((s) => !/^[^\s:]+:\d{1,5}$/.test(s))
  return bad === undefined
    ? Either.right(items)
    : Either.left(`expected host:port[,host:port...], got ${JSON.stringify(bad)}`)
}

const httpUrl: Parse<string | undefined> = (raw) => {
  const s = raw.trim()
  if (s === "") return Either.right(undefined)
  try {
    const u = new URL(s)
    if (u.protocol !== "http:" && u.protocol !== "https:") return Either.left(`expected an http(s) URL, got ${s}`)
    return Either.right(s.replace(/\/+$/, ""))
  } catch {
    return Either.left(`expected an http(s) URL, got ${JSON.stringify(raw)}`)
  }
}

/** `URL[|KEY[|RPS]]`, comma-separated: further toncenter endpoints. */
const endpointList: Parse<ReadonlyArray<ToncenterEndpointSetting>> = (raw) => {
  const out: Array<ToncenterEndpointSetting> = []
  for (const item of raw.split(",").map((s) => s.trim()).filter((s) => s !== "")) {
    const [u = "", key = "", rps = ""] = item.split("|").map((s) => s.trim())
    const url = httpUrl(u)
    if (Either.isLeft(url) || url.right === undefined) return Either.left(`expected URL[|KEY[|RPS]], got ${item}`)
    const r = optionalInt(1, 10_000)(rps)
    if (Either.isLeft(r)) return Either.left(`${item}: RPS ${r.left}`)
    out.push({ url: url.right, apiKey: key === "" ? undefined : key, rps: r.right })
  }
  return Either.right(out)
}

const MAX_INT32 = 2 ** 31 - 1
const MAX_SEQNO = 2 ** 32 - 1

/** The whole table, grouped by concern. README and .env.example list exactly these. */
export const settings = {
  network: {
    network: setting("NETWORK", "mainnet", "TON network to export", oneOf("mainnet", "testnet"))
  },
  kafka: {
    brokers: setting("KAFKA_BROKERS", "", "Comma-separated host:port; empty starts the local broker", hostPortList),
    port: setting("KAFKA_PORT", "19092", "Port of the local broker (its controller uses port+1)", port),
    dataDir: setting("KAFKA_DATA_DIR", ".data/kafka", "Data directory of the local broker", nonEmpty),
    clientId: setting("KAFKA_CLIENT_ID", "ton-exporter", "Kafka client id", nonEmpty),
    topicPrefix: setting("KAFKA_TOPIC_PREFIX", "ton", "Topic names start with <prefix>.<network>.", nonEmpty),
    partitions: setting("KAFKA_PARTITIONS", "6", "Partitions of the transactions topic, keyed by account", int(1, 10_000)),
    blockPartitions: setting(
      "KAFKA_BLOCK_PARTITIONS",
      "1",
      "Partitions of the blocks topic (bundle s in partition s mod N); more than 1 lets that many consumers share the load",
      int(1, 1_000)
    ),
    replicationFactor: setting("KAFKA_REPLICATION_FACTOR", "1", "Replicas of each topic created (at most the number of brokers)", int(1, 16)),
    maxMessageBytes: setting(
      "KAFKA_MAX_MESSAGE_BYTES",
      "67108864",
      "Largest record (broker, producer and consumer fetch limits)",
      int(1024, MAX_INT32)
    ),
    compression: setting(
      "KAFKA_COMPRESSION",
      DEFAULT_KAFKA_COMPRESSION,
      "Record-batch codec the producer writes: none, gzip, lz4 or zstd (subscribers need the codec, see README)",
      oneOf(...KAFKA_COMPRESSIONS)
    ),
    localJvmOptions: setting(
      "KAFKA_LOCAL_JVM_OPTIONS",
      "",
      "JVM options of the local broker after its own, space-separated (a later one wins); -XX:TieredStopAtLevel=4 brings back the optimizing JIT for a broker that runs for days (README, Decisions)",
      optionList
    )
  },
  clickhouse: {
    url: setting("CLICKHOUSE_URL", "", "ClickHouse server HTTP URL; empty uses embedded chdb", httpUrl),
    user: setting("CLICKHOUSE_USER", "default", "ClickHouse server user", nonEmpty),
    password: setting("CLICKHOUSE_PASSWORD", "", "ClickHouse server password", text),
    database: setting("CLICKHOUSE_DATABASE", "ton", "Database (created if absent)", (raw) =>
      /^[A-Za-z_][A-Za-z0-9_]*$/.test(raw.trim())
        ? Either.right(raw.trim())
        : Either.left(`expected an identifier [A-Za-z_][A-Za-z0-9_]*, got ${JSON.stringify(raw)}`)
    ),
    dataDir: setting("CLICKHOUSE_DATA_DIR", ".data/chdb", "Data directory of embedded chdb", nonEmpty),
    cluster: setting(
      "CLICKHOUSE_CLUSTER",
      "",
      "Cluster name (server only): tables become Replicated*MergeTree <t>_local ON CLUSTER plus Distributed <t>",
      (raw) =>
        raw.trim() === "" || /^[A-Za-z_][A-Za-z0-9_]*$/.test(raw.trim())
          ? Either.right(raw.trim())
          : Either.left(`must be a plain identifier, got ${JSON.stringify(raw)}`)
    ),
    lookupsCacheBytes: setting(
      "CLICKHOUSE_LOOKUPS_CACHE_BYTES",
      String(DEFAULT_LOOKUPS_CACHE_BYTES),
      "Embedded chdb: RocksDB block cache of account_lookups_kv, filled by the API's v3 lookups up to this; 0 leaves RocksDB's 32 MiB",
      int(0, 2 ** 40)
    ),
    v3PagesCompression: setting(
      "CLICKHOUSE_V3_PAGES_COMPRESSION",
      DEFAULT_V3_PAGES_COMPRESSION,
      "Embedded chdb: codec of v3_pages' RocksDB blocks written from now on (zstd|lz4|none); lz4 reads an uncached v3 page with less CPU, the table ~1.75x larger",
      oneOf(...TABLE_COMPRESSIONS)
    ),
    pagesMinBlobBytes: setting(
      "CLICKHOUSE_PAGES_MIN_BLOB_BYTES",
      String(DEFAULT_PAGES_MIN_BLOB_BYTES),
      "Embedded chdb: v3_pages and v2_pages values of at least this many bytes go to RocksDB blob files, so compaction moves references, not rows; 0 keeps them inline",
      int(0, 2 ** 31)
    ),
    kvBloomBits: setting(
      "CLICKHOUSE_KV_BLOOM_BITS",
      String(DEFAULT_KV_BLOOM_BITS),
      "Embedded chdb: bits per key of the Bloom filters in new table files of v3_pages and account_lookups_kv (0: none); a point read skips each file its key is not in",
      int(0, 64)
    )
  },
  toncenter: {
    url: setting("TONCENTER_URL", "", "toncenter base URL; empty serves bundled recorded data locally", httpUrl),
    apiKey: setting("TONCENTER_API_KEY", "", "toncenter API key", optionalText),
    v3Url: setting("TONCENTER_V3_URL", "", "toncenter v3 base URL for optional enrichment (account states, code hashes); empty = no enrichment", httpUrl),
    v3BlocksUrl: setting(
      "TONCENTER_V3_BLOCKS_URL",
      "",
      "toncenter v3 base URL to read block headers from, one /blocks request per masterchain block instead of one getBlockHeader per block; empty = v2 headers",
      httpUrl
    ),
    rps: setting(
      "TONCENTER_RPS",
      "",
      "Requests per second; empty means 1 without a key, 10 with one",
      optionalInt(1, 10_000)
    ),
    endpoints: setting(
      "TONCENTER_ENDPOINTS",
      "",
      "More toncenter endpoints, comma-separated URL|KEY|RPS (KEY, RPS optional); requests spread over them and TONCENTER_URL",
      endpointList
    ),
    concurrency: setting("TONCENTER_CONCURRENCY", "4", "Requests in flight per endpoint", int(1, 1000)),
    timeoutMs: setting("TONCENTER_TIMEOUT_MS", "15000", "Timeout of one request", int(1, 600_000)),
    retries: setting("TONCENTER_RETRIES", "8", "Retries of a failed request", int(0, 1000))
  },
  liteserver: {
    config: setting(
      "LITESERVER_CONFIG",
      "",
      "Liteservers to read blocks from instead of toncenter: path or http(s) URL of a TON global config, or host:port:base64-key[,...]; empty = toncenter",
      optionalText
    ),
    rps: setting("LITESERVER_RPS", "0", "Requests per second to each liteserver; 0 = unlimited", int(0, 100_000)),
    timeoutMs: setting("LITESERVER_TIMEOUT_MS", "10000", "Timeout of one liteserver query", int(1, 600_000)),
    retries: setting("LITESERVER_RETRIES", "8", "Retries of a failed liteserver query (on the next best server)", int(0, 1000)),
    accountStates: setting(
      "LITESERVER_ACCOUNT_STATES",
      "block",
      "Account states (v3 account_state_before/after, address-book bounceable flag): block = from each block's state update, no extra requests; block+lookup = also one getAccountState per message counterpart no block reported; off = hash-only",
      oneOf("block", "block+lookup", "off")
    )
  },
  producer: {
    mode: setting(
      "PRODUCER_MODE",
      "resume",
      "backfill (FROM..TO), follow (the head) or resume",
      oneOf("backfill", "follow", "resume")
    ),
    from: setting("PRODUCER_FROM", "", "First masterchain seqno (backfill)", optionalInt(0, MAX_SEQNO)),
    to: setting("PRODUCER_TO", "", "Last masterchain seqno, inclusive (backfill)", optionalInt(0, MAX_SEQNO)),
    decodeWorkers: setting(
      "PRODUCER_DECODE_WORKERS",
      "",
      "Threads decoding transactions; empty means the cores minus one (at least 1), 0 decodes on the main thread",
      optionalInt(0, 256)
    ),
    decodeYoungMb: setting(
      "PRODUCER_DECODE_YOUNG_MB",
      String(DEFAULT_DECODE_YOUNG_MB),
      "Young generation of each decode worker's V8 heap in MB (two semi-spaces of a third each, rounded up to a power of two): less memory, more CPU in scavenges below 16",
      int(3, 1024)
    ),
    learnBlocks: setting(
      "PRODUCER_LEARN_BLOCKS",
      "0",
      "Blocks before PRODUCER_FROM a backfill reads (unpublished) for trace ids; 256 for one of several range backfills",
      int(0, 100_000)
    ),
    heapGrowthPercent: setting(
      "PRODUCER_HEAP_GROWTH_PERCENT",
      String(DEFAULT_PRODUCER_HEAP_GROWTH_PERCENT),
      "How far each V8 heap of the producer (main thread and decode workers) may grow past what its last full collection kept, percent; above 0 the bytes of bundles whose Kafka transaction committed are also freed at once; 0 leaves V8's own factor (up to 300%, the heap then grows with the run). On the 50k chain: 100 keeps the producer's peak at 285-295 MB at no more CPU than 0 (305-317 MB); 50 at ~267 MB for more GC CPU",
      int(0, 1000)
    ),
    transactionRecords: setting(
      "PRODUCER_TRANSACTION_RECORDS",
      "4000",
      "Most Kafka records per producer transaction (a bundle's record and one per transaction of it; a larger bundle goes alone): the records held while one is sent",
      int(1, 1_000_000)
    ),
    inflightBytes: setting(
      "PRODUCER_INFLIGHT_BYTES",
      String(DEFAULT_PRODUCER_INFLIGHT_BYTES),
      "Bytes of fetched bundles (their records and drafts) the producer holds before they are published: the next fetch waits while they would exceed it (a larger bundle goes alone); 0 bounds them by the prefetch count alone",
      int(0, 2 ** 40)
    )
  },
  consumer: {
    group: setting("CONSUMER_GROUP", "ton-clickhouse", "Kafka consumer group of the ClickHouse sink", nonEmpty),
    batchRows: setting("CONSUMER_BATCH_ROWS", "50000", "Rows per ClickHouse insert batch", int(1, 10_000_000)),
    batchBytes: setting(
      "CONSUMER_BATCH_BYTES",
      "16777216",
      "Kafka record bytes per insert batch, at most (a larger record alone; the decoded bundles take about as much memory)",
      int(65_536, 2_147_483_647)
    ),
    fetchBytes: setting(
      "CONSUMER_FETCH_BYTES",
      "4194304",
      "Compressed Kafka record bytes one fetch brings (per partition and in all; a larger record batch still comes whole): each fetch is decompressed at once, ~6x larger with zstd",
      int(16_384, 2_147_483_647)
    ),
    batchMs: setting("CONSUMER_BATCH_MS", "1000", "Longest wait before a partial batch is written", int(1, 3_600_000)),
    sessionTimeoutMs: setting(
      "CONSUMER_SESSION_TIMEOUT_MS",
      "30000",
      "Kafka group session timeout of the consumer",
      int(6_000, 3_600_000)
    ),
    heapGrowthPercent: setting(
      "CONSUMER_HEAP_GROWTH_PERCENT",
      String(DEFAULT_CONSUMER_HEAP_GROWTH_PERCENT),
      "How far the consumer's V8 heap may grow past what its last full collection kept, percent; 0 leaves V8's own factor",
      int(0, 1000)
    )
  },
  api: {
    host: setting("API_HOST", "127.0.0.1", "Address the API listens on", nonEmpty),
    port: setting("API_PORT", "8080", "Port the API listens on", port),
    keys: setting("API_KEYS", "", "Comma-separated API keys; empty leaves the API open", list),
    rateLimit: setting("API_RATE_LIMIT", "0", "Requests per second per key; 0 is off", int(0, 1_000_000)),
    cacheBytes: setting("API_CACHE_BYTES", "67108864", "Byte budget of the rendered-response cache; 0 is off", int(0, 2 ** 40)),
    readConnections: setting(
      "API_READ_CONNECTIONS",
      "4",
      "Embedded ClickHouse sessions the API reads through side by side (a server is read over pooled HTTP)",
      int(1, 64)
    ),
    readSharing: setting(
      "API_READ_SHARING",
      "16",
      "Uncached page reads of one kind arriving while its statements run that share the next one; 1 runs each alone",
      int(1, 256)
    ),
    readSharedStatements: setting(
      "API_READ_SHARED_STATEMENTS",
      "2",
      "Page statements of one kind (v3 page rows, v3 lookups, v2 page rows) running at once",
      int(1, 64)
    ),
    readSharedAfter: setting(
      "API_READ_SHARED_AFTER",
      "4",
      "Page reads of one kind waiting before a statement goes out beside a running one (with API_READ_SHARED_STATEMENTS > 1)",
      int(1, 256)
    )
  },
  metrics: {
    port: setting("METRICS_PORT", "9464", "Port of the Prometheus /metrics endpoint", port)
  },
  sql: {
    host: setting("SQL_HOST", "127.0.0.1", "Address of the ClickHouse HTTP endpoint over embedded chdb (read-only; read-write in npm run clickhouse:serve; outside loopback needs SQL_USER and SQL_PASSWORD)", nonEmpty),
    port: setting("SQL_PORT", "8123", "Port of the SQL endpoint; 0 turns it off (never started with CLICKHOUSE_URL)", int(0, 65535)),
    user: setting("SQL_USER", "", "User the SQL endpoint asks for; empty with SQL_PASSWORD empty asks for none", text),
    password: setting("SQL_PASSWORD", "", "Password the SQL endpoint asks for", text)
  },
  log: {
    level: setting(
      "LOG_LEVEL",
      "info",
      "trace|debug|info|warn|error|fatal",
      oneOf("trace", "debug", "info", "warn", "error", "fatal")
    )
  }
} as const

/** Flat list, in table order, for documentation and `.env.example`. */
export const allSettings: ReadonlyArray<Setting<unknown>> = Object.values(settings).flatMap((group) =>
  Object.values(group as Record<string, Setting<unknown>>)
)

/** A setting holds a value it cannot use; `key` is the env name to fix. */
export class ConfigValueError extends Error {
  override readonly name = "ConfigValueError"
  constructor(
    readonly key: string,
    readonly problem: string
  ) {
    super(`${key}: ${problem}`)
  }
}

type Env = Readonly<Record<string, string | undefined>>

/** The decode pool leaves one core to the main thread (HTTP, JSON, Kafka) and uses the rest. */
export const defaultDecodeWorkers = (): number => Math.max(1, availableParallelism() - 1)

/** toncenter's free limits: 1 request per second without a key, 10 with one. */
export const defaultToncenterRps = (apiKey: string | undefined): number => (apiKey === undefined || apiKey === "" ? 1 : 10)

/** The first bad value in a ConfigError tree, as the env key and the problem. */
const firstInvalid = (e: ConfigError.ConfigError): ConfigValueError | undefined => {
  switch (e._op) {
    case "And":
    case "Or":
      return firstInvalid(e.left) ?? firstInvalid(e.right)
    case "InvalidData": {
      const key = e.path[e.path.length - 1] ?? ""
      return new ConfigValueError(key, e.message.startsWith(`${key}: `) ? e.message.slice(key.length + 2) : e.message)
    }
    default:
      return undefined
  }
}

/**
 * The same `Config` read outside Effect (scripts, tests), over `env`. Throws `ConfigValueError` naming the env key
 * of the first bad value.
 */
export const loadConfig = (env: Env = process.env): AppConfig => {
  const readAll = Effect.gen(function* () {
    return yield* AppConfigConfig
  })
  const provider = ConfigProvider.fromMap(new Map(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)))
  const result = Effect.runSync(Effect.either(Effect.withConfigProvider(readAll, provider)))
  if (Either.isRight(result)) return result.right
  throw firstInvalid(result.left) ?? new ConfigValueError("", String(result.left))
}

/** One setting as an Effect `Config`, failing with `InvalidData` whose message names the env key. */
export const settingConfig = <A>(s: Setting<A>): Config.Config<A> =>
  Config.string(s.env).pipe(
    Config.withDefault(s.default),
    Config.mapOrFail((raw) =>
      Either.mapLeft(s.parse(raw), (problem) => ConfigError.InvalidData([s.env], `${s.env}: ${problem}`))
    )
  )

const group = <G extends Record<string, Setting<any>>>(g: G): Config.Config<{ [K in keyof G]: SettingValue<G[K]> }> =>
  Config.all(Object.fromEntries(Object.entries(g).map(([k, s]) => [k, settingConfig(s)]))) as any

type SettingValue<S> = S extends Setting<infer A> ? A : never

export const KafkaConfig: Config.Config<KafkaSettings> = group(settings.kafka)
export const ClickHouseConfig: Config.Config<ClickHouseSettings> = Config.map(group(settings.clickhouse), (c) => ({
  ...c,
  password: Redacted.make(c.password)
}))
export const ApiConfig: Config.Config<ApiSettings> = group(settings.api)
export const ConsumerConfig: Config.Config<ConsumerSettings> = group(settings.consumer)
export const SqlConfig: Config.Config<SqlSettings> = group(settings.sql)
export const NetworkConfig: Config.Config<Network> = settingConfig(settings.network.network)

/** The liteserver source's settings; a set LITESERVER_CONFIG chooses it over toncenter. */
export const LiteserverConfig = group(settings.liteserver)

/** Settings whose defaults depend on other settings are resolved here, exactly as in `loadConfig`. */
export const ToncenterConfig: Config.Config<ToncenterSettings> = Config.map(group(settings.toncenter), (t) => ({
  ...t,
  apiKey: t.apiKey === undefined ? undefined : Redacted.make(t.apiKey),
  rps: t.rps ?? defaultToncenterRps(t.apiKey)
}))

export const ProducerConfig: Config.Config<ProducerSettings> = Config.mapOrFail(group(settings.producer), (p) =>
  p.from !== undefined && p.to !== undefined && p.to < p.from
    ? Either.left(
        ConfigError.InvalidData(["PRODUCER_TO"], `PRODUCER_TO: must be >= PRODUCER_FROM (${p.from}), got ${p.to}`)
      )
    : Either.right({ ...p, decodeWorkers: p.decodeWorkers ?? defaultDecodeWorkers() })
)

/** The whole configuration as one Effect `Config`. */
export const AppConfigConfig: Config.Config<AppConfig> = Config.all({
  network: NetworkConfig,
  kafka: KafkaConfig,
  clickhouse: ClickHouseConfig,
  toncenter: ToncenterConfig,
  producer: ProducerConfig,
  consumer: ConsumerConfig,
  api: ApiConfig,
  metrics: group(settings.metrics),
  sql: SqlConfig,
  log: group(settings.log)
})
