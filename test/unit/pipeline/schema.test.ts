// The documented JSON schemas of the Kafka topics hold for what the producer really publishes: bundles assembled
// from the bundled chain (recorded real mainnet transactions) and dead letters of real decode failures.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { fixturesChain } from "../../../tools/fake/server.js"
import { completeBundle, PublishHistory } from "../../../src/kafka/transactions.js"
import { assembleBundle, blockDeadLetter, prepare } from "../../../src/producer/assemble.js"
import { decodeTransaction } from "../../../src/ton/decode.js"
import { repoRoot } from "../../../src/infra/kafkaBroker.js"
import { rawBundle } from "../../support/pipeline/chainUpstream.js"

type Schema = Record<string, any>

/** The subset of JSON Schema the two documents use; returns the paths that violate it. */
const validate = (root: Schema, schema: Schema, value: unknown, path = "$", errors: Array<string> = []): Array<string> => {
  if (schema.$ref) return validate(root, root.$defs[String(schema.$ref).replace("#/$defs/", "")], value, path, errors)
  if (schema.anyOf) {
    if (!schema.anyOf.some((s: Schema) => validate(root, s, value, path, []).length === 0)) errors.push(`${path}: no anyOf branch`)
    return errors
  }
  if ("const" in schema && value !== schema.const) errors.push(`${path}: not ${schema.const}`)
  if (schema.enum && !schema.enum.includes(value)) errors.push(`${path}: ${String(value)} not in enum`)
  if (schema.type) {
    const types: Array<string> = Array.isArray(schema.type) ? schema.type : [schema.type]
    const actual =
      value === null ? "null" : Array.isArray(value) ? "array" : Number.isInteger(value) ? "integer" : typeof value
    if (!types.includes(actual) && !(actual === "integer" && types.includes("number"))) {
      errors.push(`${path}: ${actual} is not ${types.join("|")}`)
      return errors
    }
  }
  if (typeof value === "string" && schema.pattern && !new RegExp(schema.pattern).test(value)) {
    errors.push(`${path}: ${value.slice(0, 40)} does not match ${schema.pattern}`)
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) errors.push(`${path}: below minimum`)
    if (schema.maximum !== undefined && value > schema.maximum) errors.push(`${path}: above maximum`)
  }
  if (Array.isArray(value) && schema.items) value.forEach((v, i) => validate(root, schema.items, v, `${path}[${i}]`, errors))
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>
    for (const k of schema.required ?? []) if (!(k in obj)) errors.push(`${path}: missing ${k}`)
    for (const [k, v] of Object.entries(obj)) {
      if (schema.properties?.[k]) validate(root, schema.properties[k], v, `${path}.${k}`, errors)
      else if (schema.additionalProperties === false) errors.push(`${path}: unexpected ${k}`)
      else if (typeof schema.additionalProperties === "object") validate(root, schema.additionalProperties, v, `${path}.${k}`, errors)
    }
  }
  return errors
}

const load = (name: string): Schema => JSON.parse(readFileSync(join(repoRoot, "docs/schemas", name), "utf8"))

describe("Kafka JSON schemas", () => {
  const chain = fixturesChain()
  const bundleSchema = load("masterchain-bundle.v1.json")
  const letterSchema = load("dead-letter.v1.json")

  it("accepts every bundle of the bundled chain and rejects a broken one", () => {
    let txs = 0
    let texts = 0
    for (let s = chain.first; s <= chain.last; s++) {
      const { bundle, deadLetters } = assembleBundle(rawBundle(chain, s)!, "mainnet", decodeTransaction)
      expect(deadLetters).toEqual([])
      const plain = JSON.parse(JSON.stringify(bundle))
      expect(validate(bundleSchema, bundleSchema, plain)).toEqual([])
      // The record as published: the bundle with its bodies' texts.
      const record = JSON.parse(prepare({ bundle, deadLetters }).bundle!.value.toString("utf8"))
      expect(validate(bundleSchema, bundleSchema, record)).toEqual([])
      texts += Object.keys(record.decoded_bodies.texts).length
      txs += bundle.transactions.length
    }
    expect(txs).toBeGreaterThan(1000)
    expect(texts).toBeGreaterThan(100)
    const broken = JSON.parse(JSON.stringify(assembleBundle(rawBundle(chain, chain.first)!, "mainnet", decodeTransaction).bundle))
    broken.transactions[0].lt = 5
    delete broken.mc_block.tx_count
    expect(validate(bundleSchema, bundleSchema, broken)).toEqual([
      "$.mc_block: missing tx_count",
      "$.transactions[0].lt: integer is not string"
    ])
  })

  it("accepts every transactions-topic record of the bundled chain and rejects a broken one", () => {
    const txSchema = load("transaction.v1.json")
    const history = new PublishHistory()
    let records = 0
    let sample: Record<string, any> | undefined
    for (let s = chain.first; s <= chain.last; s++) {
      const p = prepare(assembleBundle(rawBundle(chain, s)!, "mainnet", decodeTransaction))
      for (const r of completeBundle(s, p.drafts, p.accountStates, history).records) {
        const value = JSON.parse(r.value.toString("utf8"))
        expect(validate(txSchema, txSchema, value)).toEqual([])
        sample ??= value
        records++
      }
    }
    expect(records).toBeGreaterThan(1000)
    const broken: Record<string, any> = { ...sample!, lt: 5, block_ref: { ...sample!.block_ref, shard: "-9223372036854775808" } }
    delete broken.trace_id
    expect(validate(txSchema, txSchema, broken)).toEqual([
      "$: missing trace_id",
      "$.lt: integer is not string",
      "$.block_ref.shard: -9223372036854775808 does not match ^[0-9A-F]{1,16}$"
    ])
  })

  it("accepts dead letters of both kinds", () => {
    const raw = rawBundle(chain, chain.first)!
    const poisoned = { ...raw, transactions: raw.transactions.map((t, i) => (i === 0 ? { ...t, boc: "te6cc" } : t)) }
    const { deadLetters } = assembleBundle(poisoned, "mainnet", decodeTransaction)
    expect(deadLetters).toHaveLength(1)
    for (const letter of [...deadLetters, blockDeadLetter("mainnet", 7, "upstream_malformed", "bad body")]) {
      expect(validate(letterSchema, letterSchema, JSON.parse(JSON.stringify(letter)))).toEqual([])
    }
  })
})
