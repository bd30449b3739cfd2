// `npm run kafka:start|kafka:stop|kafka:status|kafka:fetch`: the local broker as a background service for
// development, on KAFKA_PORT and KAFKA_DATA_DIR. The broker outlives this command until kafka:stop.
import { loadConfig } from "../../src/config.js"
import { ensureKafkaJars, KAFKA_VERSION, startLocalKafka, stopDetachedKafka } from "../../src/infra/kafkaBroker.js"
import { existsSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"

const main = async (command: string | undefined): Promise<void> => {
  const { kafka } = loadConfig()
  switch (command) {
    case "fetch": {
      const t0 = Date.now()
      const libs = await ensureKafkaJars()
      console.log(`Apache Kafka ${KAFKA_VERSION} jars in ${libs} (${Date.now() - t0} ms)`)
      return
    }
    case "start": {
      const t0 = Date.now()
      const local = await startLocalKafka({
        port: kafka.port,
        dataDir: kafka.dataDir,
        maxMessageBytes: kafka.maxMessageBytes,
        jvmOptions: kafka.localJvmOptions,
        detached: true
      })
      console.log(
        `Kafka ${KAFKA_VERSION} on ${local.brokers.join(",")} (pid ${local.pid()}, ${Date.now() - t0} ms), ` +
          `data ${local.dataDir}, log ${local.logFile}`
      )
      return
    }
    case "stop": {
      console.log(`Kafka on ${resolve(kafka.dataDir)}: ${await stopDetachedKafka(kafka.dataDir)}`)
      return
    }
    case "status": {
      const pidFile = join(resolve(kafka.dataDir), "broker.pid")
      const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8").trim()) : 0
      let running = pid > 0
      try {
        if (running) process.kill(pid, 0)
      } catch {
        running = false
      }
      console.log(running ? `running, pid ${pid}` : "not running")
      return
    }
    default:
      throw new Error("usage: cli.ts fetch|start|stop|status")
  }
}

main(process.argv[2]).catch((e: unknown) => {
  process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`)
  process.exit(1)
})
