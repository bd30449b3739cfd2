import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ipFromInt, loadLiteserverAddresses, parseDirect } from "../../../src/source/liteserver/addresses.js"
import { Upstream } from "../../../src/source/Upstream.js"
import { withBlockFiles } from "../../../tools/fake/liteserver/blocks.js"
import { type FakeLiteserver, startFakeLiteserver } from "../../../tools/fake/liteserver/server.js"
import { fixturesChain } from "../../../tools/fake/server.js"

const KEY = Buffer.alloc(32, 9).toString("base64")

describe("LITESERVER_CONFIG", () => {
  it("reads host:port:key lists", () => {
    const a = parseDirect(`127.0.0.1:4924:${KEY}, example.org:1:${KEY}`)!
    expect(a.map((x) => [x.host, x.port, x.publicKey.toString("base64")])).toEqual([
      ["127.0.0.1", 4924, KEY],
      ["example.org", 1, KEY]
    ])
    expect(parseDirect("/etc/global.config.json")).toBeUndefined()
  })

  it("reads a global config file: ip as a signed int32, port, id.key", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ls-config-"))
    const file = join(dir, "global.config.json")
    // 84.35.187.32 packs to 1411627808; an address above 127.x packs negative
    const json = {
      liteservers: [
        { ip: 1411627808, port: 46427, id: { "@type": "pub.ed25519", key: KEY } },
        { ip: -1185526007, port: 4924, id: { "@type": "pub.ed25519", key: KEY } }
      ]
    }
    writeFileSync(file, JSON.stringify(json))
    const a = await loadLiteserverAddresses(file)
    expect(a.map((x) => `${x.host}:${x.port}`)).toEqual(["84.35.187.32:46427", "185.86.79.9:4924"])
    expect(ipFromInt(-1)).toBe("255.255.255.255")
    await expect(loadLiteserverAddresses(join(dir, "absent.json"))).rejects.toThrow(/readable file/)
    writeFileSync(file, JSON.stringify({ liteservers: [{ ip: 1, port: 2, id: { key: "c2hvcnQ=" } }] }))
    await expect(loadLiteserverAddresses(file)).rejects.toThrow(/32 bytes/)
  })
})

describe("Upstream.layer with LITESERVER_CONFIG", { timeout: 120_000 }, () => {
  const lite = withBlockFiles(fixturesChain())
  let ls: FakeLiteserver
  beforeAll(async () => {
    ls = await startFakeLiteserver({ chain: lite })
  }, 120_000)
  afterAll(() => ls?.stop())

  it("chooses the liteserver source and serves the chain's bundles", async () => {
    const provider = ConfigProvider.fromMap(new Map([["LITESERVER_CONFIG", ls.config]]))
    const got = await Effect.runPromise(
      Effect.gen(function* () {
        const up = yield* Upstream
        const head = yield* up.head
        return { head, bundle: yield* up.bundle(lite.chain.first) }
      }).pipe(Effect.provide(Upstream.layer), Effect.provide(Layer.setConfigProvider(provider)), Effect.scoped)
    )
    expect(got.head).toBe(lite.chain.last)
    expect(got.bundle.mc_block).toEqual(lite.chain.masterchain.get(lite.chain.first)!.block.record)
    expect(ls.requests.some((r) => r.method === "getBlock")).toBe(true)
  })
})
