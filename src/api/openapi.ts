/**
 * The OpenAPI 3.1 document, generated from the routes' own schemas (collected as routes register), and a
 * small self-contained docs page that reads it; nothing is fetched from outside (no CDN is reachable).
 * Invariants: a route is documented from the schema object it validates with (a parameter's documented type, range
 * and pattern come from the same `param` call as its wire schema, see schemas.ts); examples name a block the
 * running store holds, so the docs page's defaults answer 200 on whatever data this server has.
 */
import type { FastifyInstance, RouteOptions } from "fastify"
import { paramDocs, type ExampleSlot } from "./schemas.js"

/** A block of the running store that holds transactions: what every documented example names. */
export interface ExampleBlock {
  readonly mc_seqno: number
  /** A block committed by that masterchain block (possibly the masterchain block itself) holding transactions. */
  readonly block: { readonly workchain: number; readonly shard: string; readonly seqno: number }
}

/** Documented forms of request bodies, by the wire schema Fastify validates with; filled with the example block. */
export const bodyDocs = new WeakMap<object, (example: ExampleBlock | null) => Record<string, unknown>>()

interface Collected {
  readonly method: string
  readonly url: string
  readonly schema: Record<string, any>
}

export type OpenApiDocument = (example: ExampleBlock | null) => Record<string, unknown>

export const collectRoutes = (app: FastifyInstance): OpenApiDocument => {
  const routes: Collected[] = []
  app.addHook("onRoute", (route: RouteOptions) => {
    const schema = route.schema as Record<string, any> | undefined
    if (schema === undefined || schema.hide === true) return
    for (const method of [route.method].flat()) {
      if (method === "HEAD") continue
      routes.push({ method: method.toLowerCase(), url: route.url, schema })
    }
  })
  let last: { key: string; doc: Record<string, unknown> } | undefined
  return (example) => {
    const key = JSON.stringify(example)
    if (last?.key !== key) last = { key, doc: buildDocument(routes, example) }
    return last.doc
  }
}

const exampleValue = (slot: ExampleSlot | undefined, e: ExampleBlock | null): number | string | undefined => {
  if (slot === undefined || e === null) return undefined
  switch (slot) {
    case "mc_seqno":
      return e.mc_seqno
    case "block_workchain":
      return e.block.workchain
    case "block_shard":
      return e.block.shard
    case "block_seqno":
      return e.block.seqno
  }
}

interface ObjectSchema {
  readonly properties?: Record<string, any>
  readonly required?: ReadonlyArray<string>
}

const parametersOf = (where: "query" | "header", o: ObjectSchema | undefined, e: ExampleBlock | null) =>
  Object.entries(o?.properties ?? {}).map(([name, s]) => {
    const doc = paramDocs.get(s)
    const example = exampleValue(doc?.example, e)
    return {
      name,
      in: where,
      required: o?.required?.includes(name) ?? false,
      description: s.description,
      schema: doc?.schema ?? { type: s.type, ...(s.maxLength !== undefined ? { maxLength: s.maxLength } : {}) },
      ...(example !== undefined ? { example } : {})
    }
  })

const buildDocument = (routes: ReadonlyArray<Collected>, example: ExampleBlock | null): Record<string, unknown> => {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const r of routes) {
    const responses: Record<string, unknown> = {}
    for (const [status, s] of Object.entries((r.schema.response ?? {}) as Record<string, any>)) {
      responses[status.toUpperCase()] = {
        description: s.description ?? (status === "200" ? "OK" : "Error"),
        content: { "application/json": { schema: s } }
      }
    }
    const body = r.schema.body as object | undefined
    const bodyDoc = body === undefined ? undefined : (bodyDocs.get(body)?.(example) ?? body)
    ;(paths[r.url] ??= {})[r.method] = {
      summary: r.schema.summary,
      ...(r.schema.description ? { description: r.schema.description } : {}),
      tags: r.schema.tags,
      parameters: [
        ...parametersOf("query", r.schema.querystring, example),
        ...parametersOf("header", r.schema.headers, example),
        ...securityParameters
      ],
      ...(bodyDoc !== undefined
        ? {
            requestBody: {
              required: true,
              content: { "application/json": { schema: bodyDoc } }
            }
          }
        : {}),
      responses
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "TON transactions API (toncenter compatible)",
      version: "1.0.0",
      description:
        "Served from ClickHouse. v2 answers like ton-http-api (Python), v3 like ton-index-go. " +
        "API key, when the server requires one: X-API-Key header or api_key query parameter." +
        (example === null
          ? " The store holds no block yet, so the examples are empty."
          : ` Examples name masterchain block ${example.mc_seqno}, the newest stored one holding transactions.`)
    },
    paths
  }
}

const securityParameters = [
  { name: "X-API-Key", in: "header", required: false, schema: { type: "string" } },
  { name: "api_key", in: "query", required: false, schema: { type: "string" } }
]

/**
 * What the docs page sends when Send is pressed without editing anything: every parameter that has an example
 * (the required ones always do once the store holds a block) and the request body's example. Kept as page script
 * text so the page and the test that presses Send run the same code.
 */
export const DEFAULT_REQUEST_JS = `function defaultRequest(op) {
  const query = {}
  for (const p of op.parameters || []) {
    if (p.in === "query" && p.required && p.example !== undefined) query[p.name] = String(p.example)
  }
  const media = op.requestBody && op.requestBody.content["application/json"]
  const examples = media && media.schema && media.schema.examples
  return { query, body: media ? JSON.stringify((examples && examples[0]) || {}) : undefined }
}`

export const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>API docs</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 60em; padding: 0 1em; color: #222 }
h2 { font-size: 1.05em; margin: 1.6em 0 .3em }
code, pre { font: 12px ui-monospace, monospace }
.m { display: inline-block; min-width: 3.5em; font-weight: bold; color: #fff; background: #357; padding: 0 .4em }
.m.post { background: #573 }
table { border-collapse: collapse; margin: .4em 0 }
td, th { border: 1px solid #ccc; padding: .2em .5em; text-align: left; vertical-align: top }
pre { background: #f5f5f5; padding: .6em; overflow: auto; max-height: 24em }
input { width: 22em }
</style></head><body>
<h1>TON transactions API</h1>
<p id="d"></p>
<p>Machine-readable: <a href="/api/openapi.json">/api/openapi.json</a></p>
<div id="ops"></div>
<script>
const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";")
${DEFAULT_REQUEST_JS}
const hint = (p) => p.example !== undefined ? p.example : p.schema.default !== undefined ? p.schema.default : ""
const row = (p, value) =>
  "<tr><td><code>" + esc(p.name) + "</code>" + (p.required ? " *" : "") + "</td>" +
  "<td><input name='" + esc(p.name) + "' value='" + esc(value) + "' placeholder='" + esc(hint(p)) + "'></td>" +
  "<td>" + esc(p.description) + "</td></tr>"
const section = (path, method, op) => {
  const sec = document.createElement("section")
  const params = (op.parameters || []).filter((p) => p.in === "query")
  const defaults = defaultRequest(op)
  sec.innerHTML =
    "<h2><span class='m " + method + "'>" + method.toUpperCase() + "</span> <code>" + esc(path) + "</code></h2>" +
    "<p>" + esc(op.summary) + "</p><form><table><tr><th>parameter</th><th>value</th><th>description</th></tr>" +
    params.map((p) => row(p, defaults.query[p.name])).join("") + "</table>" +
    (defaults.body !== undefined ? "<textarea name='__body' rows='4' cols='80'>" + esc(defaults.body) + "</textarea><br>" : "") +
    "<button>Send</button> <span class='s'></span></form><pre hidden></pre>"
  sec.querySelector("form").addEventListener("submit", async (ev) => {
    ev.preventDefault()
    const form = new FormData(ev.target)
    const q = new URLSearchParams()
    for (const [k, v] of form) if (k !== "__body" && v !== "") q.set(k, v)
    const init = method === "post"
      ? { method: "POST", headers: { "content-type": "application/json" }, body: form.get("__body") }
      : {}
    const res = await fetch(path + (q.toString() ? "?" + q : ""), init)
    const pre = sec.querySelector("pre")
    sec.querySelector(".s").textContent = res.status + " " + (res.headers.get("cache-control") || "")
    const text = await res.text()
    try { pre.textContent = JSON.stringify(JSON.parse(text), null, 2) } catch { pre.textContent = text }
    pre.hidden = false
  })
  return sec
}
fetch("/api/openapi.json").then((r) => r.json()).then((doc) => {
  document.getElementById("d").textContent = doc.info.description
  const root = document.getElementById("ops")
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) root.appendChild(section(path, method, op))
  }
})
</script></body></html>
`
