// A producer that dies mid-transaction, for the transactions topic's kill test: it opens a Kafka transaction under
// the producer's transactional id, sends the bundle and transaction records of COUNT blocks from FROM (made by the
// producer's own code), prints `open-transaction-sent` and waits to be killed without committing. Configured by env:
// KAFKA_BROKERS, KAFKA_TOPIC_PREFIX, CLIENT_ID, CHAIN_SEED, CHAIN_MC, FROM, COUNT.
import { CompressionTypes, Kafka, logLevel } from "kafkajs"
import { generateChain } from "../../../../tools/fake/generate.js"
import { topicNames } from "../../../../src/kafka/topics.js"
import { completeBundle, PublishHistory } from "../../../../src/kafka/transactions.js"
import { assembleBundle, pipelineDecode, prepare } from "../../../../src/producer/assemble.js"
import { rawBundle } from "../../../support/pipeline/chainUpstream.js"
import { chaosChainOptions } from "../../../support/pipeline/chaosChain.js"

const env = (k: string): string => {
  const v = process.env[k]
  if (v === undefined || v === "") throw new Error(`${k} is required`)
  return v
}

const chain = generateChain(chaosChainOptions(Number(env("CHAIN_SEED")), Number(env("CHAIN_MC"))))
const topics = topicNames(env("KAFKA_TOPIC_PREFIX"), chain.network)
const kafka = new Kafka({ clientId: "dying", brokers: env("KAFKA_BROKERS").split(","), logLevel: logLevel.NOTHING })
const producer = kafka.producer({
  transactionalId: `${env("CLIENT_ID")}.${chain.network}.producer`,
  idempotent: true,
  maxInFlightRequests: 1,
  transactionTimeout: 60_000
})

const main = async () => {
  await producer.connect()
  const tx = await producer.transaction()
  const history = new PublishHistory()
  const from = Number(env("FROM"))
  for (let s = from; s < from + Number(env("COUNT")); s++) {
    const prepared = prepare(assembleBundle(rawBundle(chain, s)!, chain.network, pipelineDecode))
    const { records } = completeBundle(s, prepared.drafts, prepared.accountStates, history)
    await tx.send({ topic: topics.blocks, acks: -1, messages: [{ ...prepared.bundle!, partition: 0 }] })
    await tx.send({ topic: topics.transactions, acks: -1, compression: CompressionTypes.GZIP, messages: records })
  }
  process.stdout.write("open-transaction-sent\n")
  setInterval(() => undefined, 60_000)
}

main().catch((e: unknown) => {
  process.stderr.write(`dying producer failed: ${String(e)}\n`)
  process.exit(1)
})
