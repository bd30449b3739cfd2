/**
 * LITESERVER_CONFIG into liteserver addresses: a TON global config (a path or an http(s) URL of its JSON, whose
 * `liteservers` carry `ip` as a signed int32, `port` and `id.key` in base64) or one or more `host:port:base64-key`
 * separated by commas. Invariant: every address has a 32-byte key; anything else is a configuration error naming
 * the offending entry.
 */
import { readFile } from "node:fs/promises"
import type { LiteserverAddress } from "./LiteConnection.js"

export class LiteserverConfigError extends Error {}

interface GlobalConfigJson {
  readonly liteservers?: ReadonlyArray<{
    readonly ip?: number
    readonly port?: number
    readonly id?: { readonly key?: string }
  }>
}

const key = (b64: string, where: string): Buffer => {
  const k = Buffer.from(b64, "base64")
  if (k.length !== 32) throw new LiteserverConfigError(`${where}: the key must be 32 bytes of base64, got ${k.length}`)
  return k
}

/** The dotted IPv4 form of the global config's signed 32-bit `ip`. */
export const ipFromInt = (ip: number): string => {
  const u = ip >>> 0
  return [u >>> 24, (u >>> 16) & 255, (u >>> 8) & 255, u & 255].join(".")
}

export const fromGlobalConfig = (json: unknown, where: string): ReadonlyArray<LiteserverAddress> => {
  const list = (json as GlobalConfigJson | null)?.liteservers
  if (!Array.isArray(list) || list.length === 0) throw new LiteserverConfigError(`${where}: no liteservers listed`)
  return list.map((l, i) => {
    if (typeof l.ip !== "number" || typeof l.port !== "number" || typeof l.id?.key !== "string") {
      throw new LiteserverConfigError(`${where}: liteservers[${i}] lacks ip, port or id.key`)
    }
    return {
      host: ipFromInt(l.ip),
      port: l.port,
      publicKey: key(l.id.key, `${where}: liteservers[${i}]`)
    }
  })
}

const DIRECT = /^([^\s:,]+):(\d{1,5}):([A-Za-z0-9+/_-]{43}=?)$/

/** Parses the direct `host:port:key[,host:port:key...]` form, or returns undefined when the text is not one. */
export const parseDirect = (text: string): ReadonlyArray<LiteserverAddress> | undefined => {
  const items = text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
  if (items.length === 0 || !items.every((i) => DIRECT.test(i))) return undefined
  return items.map((i) => {
    const [, host, port, k] = DIRECT.exec(i)!
    return {
      host: host!,
      port: Number(port),
      publicKey: key(k!.replace(/-/g, "+").replace(/_/g, "/"), i)
    }
  })
}

/** Resolves LITESERVER_CONFIG (reading the file or fetching the URL a global config lives at). */
export const loadLiteserverAddresses = async (text: string): Promise<ReadonlyArray<LiteserverAddress>> => {
  const direct = parseDirect(text.trim())
  if (direct !== undefined) return direct
  const where = text.trim()
  let body: string
  if (/^https?:\/\//.test(where)) {
    const res = await fetch(where)
    if (!res.ok) throw new LiteserverConfigError(`${where}: HTTP ${res.status}`)
    body = await res.text()
  } else {
    body = await readFile(where, "utf8").catch((e: unknown) => {
      throw new LiteserverConfigError(`${where}: neither host:port:key nor a readable file (${String(e)})`)
    })
  }
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    throw new LiteserverConfigError(`${where}: not JSON`)
  }
  return fromGlobalConfig(json, where)
}
