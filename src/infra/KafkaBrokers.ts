// Where the Kafka brokers are: the ones in KAFKA_BROKERS (checked to answer), or else the project's local
// broker, started for the lifetime of the layer. Invariant: with KAFKA_BROKERS set nothing is started; without it the local broker is
// stopped cleanly when the layer's scope closes (Ctrl-C included).
import { Context, Effect, Layer } from "effect"
import { KafkaConfig, type KafkaSettings } from "../config.js"
import { checkBrokers, KafkaBrokerError, type LocalKafka, startLocalKafka } from "./kafkaBroker.js"

export class KafkaBrokers extends Context.Tag("ton-exporter/KafkaBrokers")<
  KafkaBrokers,
  {
    readonly brokers: ReadonlyArray<string>
    /** The broker this process started, or undefined when KAFKA_BROKERS points elsewhere. */
    readonly local: LocalKafka | undefined
  }
>() {
  static readonly fromConfig = (
    cfg: Pick<KafkaSettings, "brokers" | "port" | "dataDir" | "maxMessageBytes" | "localJvmOptions">
  ) =>
    Layer.scoped(
      KafkaBrokers,
      cfg.brokers.length > 0
        ? Effect.map(
            Effect.tryPromise({
              try: () => checkBrokers(cfg.brokers),
              catch: (cause) =>
                cause instanceof KafkaBrokerError
                  ? cause
                  : new KafkaBrokerError({ reason: "Unreachable", message: String(cause) })
            }),
            () => ({ brokers: cfg.brokers, local: undefined })
          )
        : Effect.map(
            Effect.acquireRelease(
              Effect.tryPromise({
                try: () =>
                  startLocalKafka({
                    port: cfg.port,
                    dataDir: cfg.dataDir,
                    maxMessageBytes: cfg.maxMessageBytes,
                    jvmOptions: cfg.localJvmOptions
                  }),
                catch: (cause) =>
                  cause instanceof KafkaBrokerError
                    ? cause
                    : new KafkaBrokerError({ reason: "StartFailed", message: String(cause) })
              }),
              (local) => Effect.promise(() => local.stop())
            ),
            (local) => ({ brokers: local.brokers, local })
          )
    )

  /** Live layer: KAFKA_BROKERS, or the local broker on KAFKA_PORT / KAFKA_DATA_DIR. */
  static readonly layer = Layer.unwrapEffect(Effect.map(KafkaConfig, (cfg) => KafkaBrokers.fromConfig(cfg)))
}
