/**
 * The OpenAPI 3.1 document, generated from the routes' own schemas (collected as routes register), and a
 * small self-contained docs page that reads it; nothing is fetched from outside (no CDN is reachable).
 * Invariant: a route is documented exactly as it validates, because both come from the same schema object.
 */
import type { FastifyInstance, RouteOptions } from "fastify"

interface Collected {
  readonly method: string
  readonly url: string
  readonly schema: Record<string, any>
}

export const collectRoutes = (app: FastifyInstance): (() => Record<string, unknown>) => {
  const routes: Collected[] = []
  app.addHook("onRoute", (route: RouteOptions) => {
    const schema = route.schema as Record<string, any> | undefined
    if (schema === undefined || schema.hide === true) return
    for (const method of [route.method].flat()) {
      if (method === "HEAD") continue
      routes.push({ method: method.toLowerCase(), url: route.url, schema })
    }
  })
  let doc: Record<string, unknown> | undefined
  return () => (doc ??= buildDocument(routes))
}

const buildDocument = (routes: ReadonlyArray<Collected>): Record<string, unknown> => {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const r of routes) {
    const qs = r.schema.querystring as { properties?: Record<string, any>; required?: string[] } | undefined
    const parameters = Object.entries(qs?.properties ?? {}).map(([name, s]) => ({
      name,
      in: "query",
      required: qs?.required?.includes(name) ?? false,
      description: s.description,
      schema: { type: s.type, ...(s.examples ? { examples: s.examples } : {}) }
    }))
    const responses: Record<string, unknown> = {}
    for (const [status, s] of Object.entries((r.schema.response ?? {}) as Record<string, any>)) {
      responses[status] = {
        description: s.description ?? (status === "200" ? "OK" : "Error"),
        content: { "application/json": { schema: s } }
      }
    }
    ;(paths[r.url] ??= {})[r.method] = {
      summary: r.schema.summary,
      tags: r.schema.tags,
      parameters: [...parameters, ...securityParameters],
      ...(r.schema.body ? { requestBody: { content: { "application/json": { schema: r.schema.body } } } } : {}),
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
        "API key, when the server requires one: X-API-Key header or api_key query parameter."
    },
    paths
  }
}

const securityParameters = [
  { name: "X-API-Key", in: "header", required: false, schema: { type: "string" } },
  { name: "api_key", in: "query", required: false, schema: { type: "string" } }
]

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
const RPC_EXAMPLE = '{"jsonrpc":"2.0","id":1,"method":"shards","params":{"seqno":39984096}}'
const row = (p) =>
  "<tr><td><code>" + esc(p.name) + "</code>" + (p.required ? " *" : "") + "</td>" +
  "<td><input name='" + esc(p.name) + "' placeholder='" + esc((p.schema.examples || [""])[0]) + "'></td>" +
  "<td>" + esc(p.description) + "</td></tr>"
const section = (path, method, op) => {
  const sec = document.createElement("section")
  const params = (op.parameters || []).filter((p) => p.in === "query")
  sec.innerHTML =
    "<h2><span class='m " + method + "'>" + method.toUpperCase() + "</span> <code>" + esc(path) + "</code></h2>" +
    "<p>" + esc(op.summary) + "</p><form><table><tr><th>parameter</th><th>value</th><th>description</th></tr>" +
    params.map(row).join("") + "</table>" +
    (op.requestBody ? "<textarea name='__body' rows='4' cols='80'>" + esc(RPC_EXAMPLE) + "</textarea><br>" : "") +
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
