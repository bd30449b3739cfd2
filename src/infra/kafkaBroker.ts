// A real single-node Apache Kafka (KRaft, combined broker+controller) run from jars fetched from Maven Central,
// for machines without Docker. Invariant: the broker listens on 127.0.0.1 only, its storage is formatted once per
// data directory (so a restart on the same directory keeps every acknowledged record), and `stop()` returns only
// after the JVM has exited.
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync
} from "node:fs"
import { createServer } from "node:net"
import { basename, dirname, join, resolve } from "node:path"
import { Schema } from "effect"
import { Kafka, logLevel } from "kafkajs"
import { repoRoot } from "./paths.js"
import { allowLongerShutdown } from "./shutdownDeadline.js"

/** How much longer a broker's first stop may take than the shutdown deadline allows: it writes the archive then. */
const ARCHIVE_STOP_MS = 25_000

/** 3.9.x: KRaft without ZooKeeper and still every protocol version kafkajs 2.2.4 speaks (4.0 dropped old ones). */
export const KAFKA_VERSION = "3.9.1"

export { repoRoot }

export class KafkaBrokerError extends Schema.TaggedError<KafkaBrokerError>()("KafkaBrokerError", {
  reason: Schema.Literal(
    "ToolMissing",
    "FetchFailed",
    "PortInUse",
    "DataDirInUse",
    "StartFailed",
    "StartTimeout",
    // KAFKA_BROKERS points at something that does not serve Kafka metadata in time.
    "Unreachable"
  ),
  message: Schema.String
}) {}

export interface LocalKafkaOptions {
  /** Client port on 127.0.0.1 (KAFKA_PORT); the controller listens on port + 1. */
  readonly port: number
  /** Storage, configuration, pid file and broker log (KAFKA_DATA_DIR). */
  readonly dataDir: string
  /** Largest record the broker accepts (KAFKA_MAX_MESSAGE_BYTES). */
  readonly maxMessageBytes?: number
  /** JVM options after LOCAL_BROKER_JVM_OPTIONS, so that a later one wins (KAFKA_LOCAL_JVM_OPTIONS). */
  readonly jvmOptions?: ReadonlyArray<string>
  /** How long to wait for the broker to accept clients; default 90 s. */
  readonly startTimeoutMs?: number
  /** Keep the JVM running after this process exits (for `npm run kafka:start`). */
  readonly detached?: boolean
}

export interface LocalKafka {
  readonly brokers: ReadonlyArray<string>
  readonly dataDir: string
  readonly logFile: string
  /** Process id of the broker JVM (changes on restart). */
  readonly pid: () => number | undefined
  /** SIGTERM, then wait for a clean exit (SIGKILL after 30 s). Idempotent. */
  readonly stop: () => Promise<void>
  /** Stop, then start again on the same data directory and port. */
  readonly restart: () => Promise<void>
}

const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024

/**
 * The local broker's JVM: a small heap and G1 with short pauses, as Kafka's own start script has it, and the JIT
 * stopped at its quick tier (C1). On the 50k-transaction bench the compiler threads were 0.088 of the broker's 0.192
 * ms/tx after the clock (median of five runs) while the code they optimise (request handling; the bytes move in
 * native code: zstd, CRC32C, sendfile) took 0.071: a broker that starts with a backfill or a demo never earns its
 * optimising compiles back (with C1: 0.116 ms/tx, handlers and network 0.063). KAFKA_LOCAL_JVM_OPTIONS with
 * -XX:TieredStopAtLevel=4 restores C2 (BENCHMARKS.md, "the Kafka leg").
 */
export const LOCAL_BROKER_JVM_OPTIONS: ReadonlyArray<string> = [
  "-Xms128m",
  "-Xmx512m",
  "-XX:+UseG1GC",
  "-XX:MaxGCPauseMillis=20",
  "-XX:TieredStopAtLevel=1"
]

const run = (cmd: string, args: ReadonlyArray<string>, opts: { cwd?: string; timeoutMs?: number } = {}) =>
  new Promise<{ code: number; output: string }>((resolvePromise) => {
    execFile(
      cmd,
      args as Array<string>,
      { cwd: opts.cwd, timeout: opts.timeoutMs ?? 600_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1
        resolvePromise({ code, output: `${stdout}${stderr}${error !== null && code === 1 ? error.message : ""}` })
      }
    )
  })

const javaBin = (): string => (process.env.JAVA_HOME ? join(process.env.JAVA_HOME, "bin", "java") : "java")

/** Directory holding the broker's jars; default `<repo>/.cache/kafka-<version>/libs`. */
export const kafkaLibsDir = (cacheRoot: string = join(repoRoot, ".cache")): string =>
  join(cacheRoot, `kafka-${KAFKA_VERSION}`, "libs")

/**
 * Fetch the broker's jars with Maven into the cache, once. A completed fetch leaves a marker, so an interrupted one
 * is redone rather than trusted.
 */
export const ensureKafkaJars = async (cacheRoot: string = join(repoRoot, ".cache")): Promise<string> => {
  const libs = kafkaLibsDir(cacheRoot)
  const marker = join(libs, ".complete")
  if (existsSync(marker)) return libs
  const staging = `${libs}.partial-${process.pid}`
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(dirname(libs), { recursive: true })
  const pom = join(repoRoot, "scripts", "kafka", "pom.xml")
  const mvn = await run(
    "mvn",
    [
      "-q",
      "-B",
      "-f",
      pom,
      `-Dkafka.version=${KAFKA_VERSION}`,
      "dependency:copy-dependencies",
      `-DoutputDirectory=${staging}`,
      "-DincludeScope=runtime"
    ],
    { timeoutMs: 900_000 }
  )
  if (mvn.code !== 0 || !existsSync(join(staging, `kafka_2.13-${KAFKA_VERSION}.jar`))) {
    rmSync(staging, { recursive: true, force: true })
    const missing = /ENOENT|not found/.test(mvn.output) && mvn.output.length < 200
    throw new KafkaBrokerError({
      reason: missing ? "ToolMissing" : "FetchFailed",
      message: missing
        ? "Maven (mvn) is not on PATH; it fetches the local Kafka broker. Install Maven or set KAFKA_BROKERS"
        : `fetching Apache Kafka ${KAFKA_VERSION} jars from Maven Central failed (${pom}):\n${mvn.output.slice(-2000)}`
    })
  }
  writeFileSync(join(staging, ".complete"), `${new Date().toISOString()}\n`)
  rmSync(libs, { recursive: true, force: true })
  try {
    renameSync(staging, libs)
  } catch (e) {
    // Another process finished the same fetch first; its result is as good as ours.
    rmSync(staging, { recursive: true, force: true })
    if (!existsSync(marker)) throw e
  }
  return libs
}

/**
 * A dump finished by a broker whose parent had already exited (a shutdown cut short by its deadline) is adopted as
 * the archive; one written to in the last half minute may still be growing and is left alone.
 */
const adoptFinishedDump = (archive: string): void => {
  if (existsSync(archive)) return
  const dir = dirname(archive)
  const prefix = `${basename(archive)}.`
  for (const name of readdirSync(dir)) {
    const pid = Number(/^(\d+)-/.exec(name.slice(prefix.length))?.[1])
    if (!name.startsWith(prefix) || !Number.isSafeInteger(pid) || pid <= 0) continue
    try {
      process.kill(pid, 0)
      continue
    } catch {
      // No such process: nobody will rename this dump.
    }
    const path = join(dir, name)
    if (Date.now() - statSync(path).mtimeMs < 30_000) continue
    try {
      renameSync(path, archive)
      return
    } catch {
      // Another broker adopted it first.
    }
  }
}

/** Kafka's own cluster id form: 16 random bytes, URL-safe base64 without padding, never starting with "-". */
const randomClusterId = (): string => {
  for (;;) {
    const id = randomBytes(16).toString("base64url")
    if (!id.startsWith("-")) return id
  }
}

const serverProperties = (opts: Required<Pick<LocalKafkaOptions, "port" | "dataDir" | "maxMessageBytes">>): string => {
  const controllerPort = opts.port + 1
  const max = opts.maxMessageBytes
  const lines: Record<string, string | number> = {
    "process.roles": "broker,controller",
    "node.id": 1,
    "controller.quorum.voters": `1@127.0.0.1:${controllerPort}`,
    listeners: `PLAINTEXT://127.0.0.1:${opts.port},CONTROLLER://127.0.0.1:${controllerPort}`,
    "advertised.listeners": `PLAINTEXT://127.0.0.1:${opts.port}`,
    "controller.listener.names": "CONTROLLER",
    "inter.broker.listener.name": "PLAINTEXT",
    "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
    "log.dirs": join(opts.dataDir, "data"),
    // The project creates its topics with explicit settings; a typo must fail, not create a topic.
    "auto.create.topics.enable": "false",
    "num.partitions": 1,
    "default.replication.factor": 1,
    "min.insync.replicas": 1,
    "offsets.topic.replication.factor": 1,
    "offsets.topic.num.partitions": 1,
    "transaction.state.log.replication.factor": 1,
    "transaction.state.log.min.isr": 1,
    "transaction.state.log.num.partitions": 1,
    "group.initial.rebalance.delay.ms": 0,
    // A whole block bundle is one record; the broker, replica fetcher and socket must all admit it.
    "message.max.bytes": max,
    "replica.fetch.max.bytes": max,
    "socket.request.max.bytes": Math.max(104_857_600, max + 1_048_576),
    "log.retention.hours": 168,
    "num.network.threads": 2,
    "num.io.threads": 4,
    "log.cleaner.threads": 1,
    "background.threads": 4
  }
  return Object.entries(lines)
    .map(([k, v]) => `${k}=${v}`)
    .join("\n")
    .concat("\n")
}

const log4jProperties = (logFile: string): string =>
  [
    "log4j.rootLogger=INFO, file",
    "log4j.appender.file=org.apache.log4j.RollingFileAppender",
    `log4j.appender.file.File=${logFile}`,
    "log4j.appender.file.MaxFileSize=20MB",
    "log4j.appender.file.MaxBackupIndex=2",
    "log4j.appender.file.layout=org.apache.log4j.PatternLayout",
    "log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n",
    "log4j.logger.kafka=INFO",
    "log4j.logger.org.apache.kafka=INFO",
    "log4j.logger.state.change.logger=WARN",
    "log4j.logger.kafka.request.logger=WARN"
  ].join("\n") + "\n"

const portFree = (port: number): Promise<boolean> =>
  new Promise((resolvePromise) => {
    const server = createServer()
    server.once("error", () => resolvePromise(false))
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => server.close(() => resolvePromise(true)))
  })

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const tail = (file: string, lines = 30): string => {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n")
  } catch {
    return "(no broker log)"
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Resolves when a Kafka client gets cluster metadata from `brokers`, rejects at `deadline`. */
export const waitForKafka = async (
  brokers: ReadonlyArray<string>,
  deadline: number,
  stillRunning: () => boolean = () => true
): Promise<void> => {
  const kafka = new Kafka({
    clientId: "ton-exporter-readiness",
    brokers: [...brokers],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1000,
    requestTimeout: 2000,
    retry: { retries: 0 }
  })
  for (;;) {
    if (!stillRunning()) throw new Error("the broker process exited")
    const admin = kafka.admin({ retry: { retries: 0 } })
    try {
      await admin.connect()
      const cluster = await admin.describeCluster()
      if (cluster.brokers.length > 0 && cluster.controller !== null && cluster.controller >= 0) return
    } catch {
      // Not accepting clients yet.
    } finally {
      await admin.disconnect().catch(() => undefined)
    }
    if (Date.now() > deadline) throw new Error("timed out")
    await sleep(250)
  }
}

/**
 * Check that `brokers` (from KAFKA_BROKERS) serve Kafka metadata within `timeoutMs`, so a wrong address stops
 * start-up with one clear error instead of a client retrying in the background forever.
 */
export const checkBrokers = async (brokers: ReadonlyArray<string>, timeoutMs = 10_000): Promise<void> => {
  try {
    await waitForKafka(brokers, Date.now() + timeoutMs)
  } catch {
    throw new KafkaBrokerError({
      reason: "Unreachable",
      message:
        `KAFKA_BROKERS=${brokers.join(",")}: no Kafka broker answered within ${timeoutMs} ms. ` +
        "Fix the address, or leave KAFKA_BROKERS empty to start the local broker"
    })
  }
}

/**
 * Start the local broker (fetching the jars first if needed) and resolve once it serves metadata.
 * Rejects with `KafkaBrokerError` whose message names KAFKA_PORT or KAFKA_DATA_DIR when those are the problem.
 */
export const startLocalKafka = async (options: LocalKafkaOptions): Promise<LocalKafka> => {
  const dataDir = resolve(options.dataDir)
  const port = options.port
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES
  const startTimeoutMs = options.startTimeoutMs ?? 90_000
  const brokers = [`127.0.0.1:${port}`]
  const logDir = join(dataDir, "logs")
  const logFile = join(logDir, "server.log")
  const pidFile = join(dataDir, "broker.pid")
  const configFile = join(dataDir, "server.properties")
  const log4jFile = join(dataDir, "log4j.properties")

  const libs = await ensureKafkaJars()
  mkdirSync(logDir, { recursive: true })
  writeFileSync(configFile, serverProperties({ port, dataDir, maxMessageBytes }))
  writeFileSync(log4jFile, log4jProperties(logFile))
  const classPath = `${libs}/*`

  if (!existsSync(join(dataDir, "data", "meta.properties"))) {
    const format = await run(javaBin(), [
      "-Xmx256m",
      `-Dlog4j.configuration=file:${log4jFile}`,
      "-cp",
      classPath,
      "kafka.tools.StorageTool",
      "format",
      "-t",
      randomClusterId(),
      "-c",
      configFile
    ])
    if (format.code !== 0) {
      const missing = /ENOENT/.test(format.output)
      throw new KafkaBrokerError({
        reason: missing ? "ToolMissing" : "StartFailed",
        message: missing
          ? "java is not on PATH (nor in JAVA_HOME); the local Kafka broker needs Java 17+. " +
            "Install it or set KAFKA_BROKERS"
          : `KAFKA_DATA_DIR=${dataDir}: formatting Kafka storage failed:\n${format.output.slice(-2000)}`
      })
    }
  }

  let child: ChildProcess | undefined
  let exited = true
  /** The broker process that dumps its class-data archive when it exits (the first of a cache dir), if any. */
  let archiving: ChildProcess | undefined

  const start = async (): Promise<void> => {
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, "utf8").trim())
      if (Number.isInteger(pid) && pid > 0 && alive(pid) && pid !== child?.pid) {
        throw new KafkaBrokerError({
          reason: "DataDirInUse",
          message:
            `KAFKA_DATA_DIR=${dataDir}: a broker (pid ${pid}) already runs on it. ` +
            "Stop it (npm run kafka:stop) or use another KAFKA_DATA_DIR"
        })
      }
    }
    for (const p of [port, port + 1]) {
      if (!(await portFree(p))) {
        throw new KafkaBrokerError({
          reason: "PortInUse",
          message:
            `KAFKA_PORT=${port}: 127.0.0.1:${p} is already in use (the broker needs KAFKA_PORT and KAFKA_PORT+1). ` +
            "Choose another KAFKA_PORT, or set KAFKA_BROKERS to use a running Kafka"
        })
      }
    }
    // Class-data sharing: the first broker of a cache dumps the classes it loaded when it exits; later starts map
    // them instead of loading ~10k classes again (about a third less start-up time here). A stale or foreign archive
    // is ignored by the JVM, which then starts as if there were none.
    const archive = join(dirname(libs), "broker.jsa")
    adoptFinishedDump(archive)
    const dumpTo =
      existsSync(archive) || options.detached === true
        ? undefined
        : `${archive}.${process.pid}-${randomBytes(4).toString("hex")}`
    const cds =
      dumpTo === undefined
        ? existsSync(archive)
          ? [`-XX:SharedArchiveFile=${archive}`]
          : []
        : [`-XX:ArchiveClassesAtExit=${dumpTo}`]
    const out = openSync(join(logDir, "jvm.out"), "a")
    const proc = spawn(
      javaBin(),
      [
        ...cds,
        ...LOCAL_BROKER_JVM_OPTIONS,
        ...(options.jvmOptions ?? []),
        "-Djava.awt.headless=true",
        `-Dlog4j.configuration=file:${log4jFile}`,
        `-Dkafka.logs.dir=${logDir}`,
        "-cp",
        classPath,
        "kafka.Kafka",
        configFile
      ],
      { stdio: ["ignore", out, out], detached: options.detached === true }
    )
    closeSync(out)
    child = proc
    archiving = dumpTo === undefined ? undefined : proc
    exited = false
    const exitedPromise = new Promise<void>((r) => proc.once("exit", () => r()))
    proc.once("exit", (code, signal) => {
      if (child === proc) exited = true
      if (dumpTo === undefined) return
      // Only an archive from an orderly exit is complete; the first finished dump wins. A terminal's Ctrl-C reaches
      // the broker too (same process group): the JVM stops as orderly on SIGINT as on SIGTERM (exit 130 vs 143).
      const orderly = code === 0 || code === 143 || code === 130 || signal === "SIGTERM" || signal === "SIGINT"
      try {
        if (orderly && existsSync(dumpTo) && !existsSync(archive)) renameSync(dumpTo, archive)
      } catch {
        // Another broker installed its archive at the same moment; ours is redundant.
      }
      rmSync(dumpTo, { force: true })
    })
    proc.once("error", () => {
      if (child === proc) exited = true
    })
    if (options.detached === true) proc.unref()
    writeFileSync(pidFile, `${proc.pid}\n`)
    try {
      await waitForKafka(brokers, Date.now() + startTimeoutMs, () => !exited)
    } catch (e) {
      const reason = exited ? "StartFailed" : "StartTimeout"
      if (!exited) {
        proc.kill("SIGKILL")
        await exitedPromise
      }
      rmSync(pidFile, { force: true })
      throw new KafkaBrokerError({
        reason,
        message:
          `local Kafka broker on KAFKA_PORT=${port} with KAFKA_DATA_DIR=${dataDir} ` +
          (reason === "StartFailed" ? "exited during start-up" : `did not accept clients within ${startTimeoutMs} ms`) +
          ` (${(e as Error).message}). Last lines of ${logFile}:\n${tail(logFile)}\n` +
          tail(join(logDir, "jvm.out"), 10)
      })
    }
  }

  const stop = async (): Promise<void> => {
    const proc = child
    if (proc === undefined || exited) return
    const done = new Promise<void>((r) => {
      if (proc.exitCode !== null || proc.signalCode !== null) r()
      else proc.once("exit", () => r())
    })
    if (archiving === proc) {
      // The JVM writes the archive after its last thread ends: seconds more on this stop only, never on later ones.
      allowLongerShutdown(
        ARCHIVE_STOP_MS,
        "kafka broker: first stop writes its class-data archive (later starts are faster); this takes a few seconds more"
      )
    }
    proc.kill("SIGTERM")
    const killer = setTimeout(() => proc.kill("SIGKILL"), 30_000)
    await done
    clearTimeout(killer)
    exited = true
    rmSync(pidFile, { force: true })
  }

  // A broker started by a test run or `npm start` must not outlive it; a detached one is meant to.
  const onExit = () => {
    if (child !== undefined && !exited && options.detached !== true) child.kill("SIGTERM")
  }
  process.once("exit", onExit)

  await start()
  return {
    brokers,
    dataDir,
    logFile,
    pid: () => (exited ? undefined : child?.pid),
    stop: async () => {
      await stop()
      process.removeListener("exit", onExit)
    },
    restart: async () => {
      await stop()
      await start()
    }
  }
}

/** Stop a broker started detached on `dataDir` (by `npm run kafka:start`), using its pid file. */
export const stopDetachedKafka = async (dataDir: string, timeoutMs = 30_000): Promise<"stopped" | "not-running"> => {
  const pidFile = join(resolve(dataDir), "broker.pid")
  if (!existsSync(pidFile)) return "not-running"
  const pid = Number(readFileSync(pidFile, "utf8").trim())
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) {
    rmSync(pidFile, { force: true })
    return "not-running"
  }
  process.kill(pid, "SIGTERM")
  const deadline = Date.now() + timeoutMs
  while (alive(pid) && Date.now() < deadline) await sleep(200)
  if (alive(pid)) process.kill(pid, "SIGKILL")
  while (alive(pid)) await sleep(100)
  rmSync(pidFile, { force: true })
  return "stopped"
}
