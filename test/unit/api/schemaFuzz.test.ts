/**
 * A short schema-driven fuzz run (the quick counterpart of scripts/fuzz-api.sh): requests are generated from the
 * served OpenAPI document itself (each parameter's documented type, bounds, pattern and enum, their edges and values
 * just outside them, junk, repeats, absences, and JSON-RPC bodies built from the documented body schema) against
 * the app holding the bundled chain. Every answer must be below 500, have a documented status, and conform to the
 * schema documented for that status; a 405 must name what is allowed. Deterministic: a failure reproduces.
 */
import { Ajv2020 } from "ajv/dist/2020.js"
import { describe, expect, it } from "vitest"
import { bundledChainWorld } from "./bundledChain.js"
import { appFor } from "./world.js"

const rng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const CASES_PER_OPERATION = 60

type Schema = Record<string, any>
type Random = () => number

const pick = <T>(r: Random, xs: ReadonlyArray<T>): T => xs[Math.floor(r() * xs.length)]!
const chars = (r: Random, alphabet: string, n: number) =>
  Array.from({ length: n }, () => alphabet[Math.floor(r() * alphabet.length)]).join("")
const HEX = "0123456789abcdefABCDEF"
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
const JUNK = [
  "",
  " ",
  "abc",
  "1.5",
  "1e3",
  "-",
  "NaN",
  "Infinity",
  "-1e400",
  "0x10",
  "null",
  "[]",
  "٣",
  "\u0000",
  "%",
  "'--"
]

/** A value for a documented parameter: mostly inside its schema (edges included), sometimes just outside, or junk. */
const valueFor = (r: Random, s: Schema, example: unknown): string => {
  const roll = r()
  if (roll < 0.15) return pick(r, JUNK)
  if (roll < 0.2) return "9".repeat(Math.floor(r() * 150))
  if (roll < 0.35 && example !== undefined) return String(example)
  const schema = s.anyOf ? pick(r, s.anyOf as Schema[]) : s
  if (schema.enum) {
    const v = String(pick(r, schema.enum))
    return r() < 0.3 ? v.toUpperCase() : r() < 0.2 ? `${v}x` : v
  }
  if (schema.type === "integer") {
    const min = schema.minimum ?? -(2 ** 63)
    const max = schema.maximum ?? 2 ** 63
    const edges = [min, max, min - 1, max + 1, 0, -1, 1]
    if (r() < 0.5) return BigInt(Math.round(pick(r, edges))).toString()
    return BigInt(Math.floor(min + r() * (Math.min(max, 2 ** 40) - min))).toString()
  }
  if (typeof schema.pattern === "string") {
    const forms = [
      chars(r, HEX, 64),
      `${chars(r, B64, 43)}=`,
      `${chars(r, B64.replace("+/", "-_"), 43)}=`,
      `${pick(r, ["0", "-1"])}:${chars(r, HEX, 64)}`,
      chars(r, B64, 48),
      `${pick(r, ["", "-", "+"])}${chars(r, "0123456789", 1 + Math.floor(r() * 20))}`,
      chars(r, HEX, 63)
    ]
    return pick(r, forms)
  }
  return chars(r, B64, Math.floor(r() * 120))
}

const documentedParams = (op: Schema) => (op.parameters as Schema[]).filter((p) => p.in === "query")

const queryCase = (r: Random, op: Schema): { url: string; headers: Record<string, string> } => {
  const params = documentedParams(op)
  const pairs: Array<[string, string]> = []
  for (const p of params) {
    if (p.required) {
      if (r() < 0.07) continue // a required parameter left out
      pairs.push([
        p.name,
        r() < 0.6 ? String(p.example ?? valueFor(r, p.schema, p.example)) : valueFor(r, p.schema, p.example)
      ])
    } else if (r() < 0.35) {
      pairs.push([p.name, valueFor(r, p.schema, p.example)])
    }
  }
  if (pairs.length > 0 && r() < 0.07) pairs.push(pick(r, pairs)) // a repeated parameter
  const headers: Record<string, string> = {}
  if (r() < 0.2) headers["x-no-address-book"] = pick(r, ["1", "0", "false", "yes", ""])
  return {
    url: `?${pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&")}`,
    headers
  }
}

const bodyCase = (r: Random, op: Schema, defaults: Schema | undefined): string => {
  if (r() < 0.1) return pick(r, ["", "{", "[]", "null", "42", '"x"', "{}", '{"method":1}'])
  const schema = op.requestBody.content["application/json"].schema
  const props = schema.properties.params.properties as Record<string, Schema>
  const body: Record<string, unknown> = {
    jsonrpc: "2.0",
    id: pick(r, [1, "a", true, null, 1.5, { x: 1 }]),
    method: r() < 0.85 ? pick(r, schema.properties.method.enum as string[]) : pick(r, ["nope", "__proto__", ""])
  }
  const params: Record<string, unknown> = { ...(defaults?.params ?? {}) }
  for (const [name, s] of Object.entries(props)) {
    if (r() < 0.3) {
      const text = valueFor(r, s, undefined)
      params[name] = /^-?[0-9]{1,15}$/.test(text) && r() < 0.5 ? Number(text) : text
    }
  }
  if (r() < 0.05) params.unexpected = 1
  body.params = r() < 0.05 ? pick(r, [[], "x", null]) : params
  return JSON.stringify(body)
}

describe("schema-driven fuzzing of the documented operations (short run)", () => {
  const { store } = bundledChainWorld()
  const app = appFor(store)
  const ajv = new Ajv2020({ strict: false, allErrors: true })

  it("never answers 5xx, nor a status or body the document does not state", async () => {
    const doc = (await app.inject("/api/openapi.json")).json() as {
      paths: Record<string, Record<string, Schema>>
    }
    const r = rng(42)
    const statuses = new Map<number, number>()
    let cases = 0
    for (const [route, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const validators = new Map<string, ReturnType<typeof ajv.compile>>()
        const example = op.requestBody?.content["application/json"].schema.examples?.[0] as Schema | undefined
        for (let i = 0; i < CASES_PER_OPERATION; i++) {
          const { url, headers } = queryCase(r, op)
          const wrongMethod = r() < 0.05
          const verb = wrongMethod ? pick(r, ["PUT", "DELETE", "PATCH"] as const) : (method.toUpperCase() as "GET")
          const payload = method === "post" && !wrongMethod ? bodyCase(r, op, example) : undefined
          const res = await app.inject({
            method: verb,
            url: route + (method === "post" ? "" : url),
            headers: {
              ...headers,
              ...(payload !== undefined ? { "content-type": "application/json" } : {})
            },
            ...(payload !== undefined ? { payload } : {})
          })
          cases++
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
          const where = `${verb} ${route}${method === "post" ? "" : url} ${payload ?? ""} -> ${res.statusCode} ${res.body.slice(0, 300)}`
          expect(res.statusCode, where).toBeLessThan(500)
          if (res.statusCode === 405) {
            expect(res.headers.allow, where).toBeDefined()
            expect(String(res.headers.allow).split(", "), where).toContain(method.toUpperCase())
          }
          const documented = op.responses[String(res.statusCode)]
          expect(documented, `undocumented status: ${where}`).toBeDefined()
          let validate = validators.get(String(res.statusCode))
          if (validate === undefined) {
            validate = ajv.compile(documented.content["application/json"].schema)
            validators.set(String(res.statusCode), validate)
          }
          expect(validate(res.json()), `${ajv.errorsText(validate.errors)}: ${where}`).toBe(true)
        }
      }
    }
    expect(cases).toBeGreaterThanOrEqual(300)
    // the run reached both sides of the contract: answers with data and refusals of bad input
    expect(statuses.get(200) ?? 0).toBeGreaterThan(30)
    expect(statuses.get(422) ?? 0).toBeGreaterThan(30)
  })
})
