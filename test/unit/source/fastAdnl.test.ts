import { randomBytes } from "node:crypto"
import { createRequire } from "node:module"
import { ADNLClient, ADNLClientState } from "adnl/dist/client.js"
import { ADNLPacket } from "adnl/dist/packet.js"
import { describe, expect, it } from "vitest"
import { fastOnData, installFastAdnl } from "../../../src/source/liteserver/fastAdnl.js"

// The library's pieces, taken before anything is installed: the reference.
const aesLib = createRequire(import.meta.url)("adnl/dist/aes.js") as {
  createCipheriv: (algo: string, key: Uint8Array, iv: Uint8Array) => { update(d: Uint8Array): Uint8Array }
  createDecipheriv: (algo: string, key: Uint8Array, iv: Uint8Array) => { update(d: Uint8Array): Uint8Array }
}
const libCipher = aesLib.createCipheriv
const libDecipher = aesLib.createDecipheriv
const libOnData = (ADNLClient.prototype as unknown as { onData: (d: Buffer) => void }).onData
const libHash = Object.getOwnPropertyDescriptor(ADNLPacket.prototype, "hash")!.get!

/** A small deterministic generator, so a failure replays. */
const rng = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) >>> 0
  return seed / 2 ** 32
}

type Event = readonly [string, string]

/** A client as the socket sees it, without a socket: connecting, its decipher given, its events recorded. */
const client = (decipher: { update(d: Uint8Array): Uint8Array }) => {
  const c = Object.create(ADNLClient.prototype) as Record<string, unknown> & ADNLClient
  const events: Array<Event> = []
  let ended = 0
  Object.assign(c, {
    _state: ADNLClientState.CONNECTING,
    buffer: Buffer.from([]),
    decipher,
    socket: { end: () => void ended++ }
  })
  c.on("ready", () => events.push(["ready", ""]))
  c.on("data", (p: Buffer) => events.push(["data", Buffer.from(p).toString("hex")]))
  c.on("error", (e: Error) => events.push(["error", `${e.message} (ended ${ended})`]))
  return { c, events }
}

/** Feeds the same chunks to the library's onData and to ours; every event and thrown error, in order. */
const run = (key: Buffer, iv: Buffer, stream: Buffer, cuts: ReadonlyArray<number>) => {
  const lib = client(libDecipher("aes-256-ctr", key, iv))
  const fast = client(aesCipherNode(key, iv))
  const feed = (who: { c: ADNLClient; events: Array<Event> }, onData: (d: Buffer) => void) => {
    let at = 0
    // a last empty chunk: the library stops after the handshake's answer and handles what is buffered at the next
    for (const end of [...cuts, stream.length, stream.length]) {
      if (end < at || (end === at && end !== stream.length)) continue
      try {
        onData.call(who.c, Buffer.from(stream.subarray(at, end)))
      } catch (e) {
        who.events.push(["thrown", (e as Error).message])
        break
      }
      at = end
    }
    return who.events
  }
  return { lib: feed(lib, libOnData), fast: feed(fast, fastOnData as unknown as (d: Buffer) => void) }
}

const aesCipherNode = (key: Buffer, iv: Buffer) => {
  installFastAdnl()
  return aesLib.createDecipheriv("aes-256-ctr", key, iv)
}

/** Packets as the library writes them (size, nonce, payload, hash), encrypted as one stream by the library. */
const encryptedStream = (key: Buffer, iv: Buffer, payloads: ReadonlyArray<Buffer>, next: () => number) => {
  const plain = Buffer.concat(payloads.map((p) => new ADNLPacket(p, randomBytesFrom(next, 32)).data))
  return { plain, wire: Buffer.from(libCipher("aes-256-ctr", key, iv).update(plain)) }
}

const randomBytesFrom = (next: () => number, n: number): Buffer => {
  const b = Buffer.allocUnsafe(n)
  for (let i = 0; i < n; i++) b[i] = Math.floor(next() * 256)
  return b
}

const randomCuts = (next: () => number, length: number, count: number): Array<number> =>
  Array.from({ length: count }, () => Math.floor(next() * length)).sort((a, b) => a - b)

describe("the adnl package's hot paths on node:crypto, against the package", () => {
  it("AES-256-CTR: the same bytes as aes-js, a stream cut anywhere", () => {
    const next = rng(7)
    for (let round = 0; round < 20; round++) {
      const key = randomBytes(32)
      const iv = randomBytes(16)
      const data = randomBytesFrom(next, Math.floor(next() * 5000))
      const lib = libCipher("aes-256-ctr", key, iv)
      installFastAdnl()
      const ours = aesLib.createCipheriv("aes-256-ctr", key, iv)
      let at = 0
      for (const end of [...randomCuts(next, data.length, 6), data.length]) {
        if (end < at) continue
        const part = data.subarray(at, end)
        expect(Buffer.from(ours.update(part)).toString("hex")).toBe(Buffer.from(lib.update(part)).toString("hex"))
        at = end
      }
    }
  })

  it("packet hashes: the library's SHA-256 of nonce and payload", () => {
    installFastAdnl()
    const next = rng(11)
    for (const n of [0, 1, 31, 32, 33, 1000, 70_000]) {
      const p = new ADNLPacket(randomBytesFrom(next, n), randomBytesFrom(next, 32))
      expect(p.hash.toString("hex")).toBe(Buffer.from(libHash.call(p) as Uint8Array).toString("hex"))
    }
  })

  it("receiving: the same events for the same stream, whole, byte by byte and cut at random", () => {
    const next = rng(3)
    for (let round = 0; round < 30; round++) {
      const key = randomBytes(32)
      const iv = randomBytes(16)
      const sizes = [0, ...Array.from({ length: 1 + Math.floor(next() * 6) }, () => Math.floor(next() ** 3 * 300_000))]
      const { wire } = encryptedStream(key, iv, sizes.map((n) => randomBytesFrom(next, n)), next)
      const cuts =
        round === 0 ? [] : round === 1 ? Array.from({ length: Math.min(wire.length, 3000) }, (_, i) => i + 1) : randomCuts(next, wire.length, 1 + Math.floor(next() * 40))
      const { lib, fast } = run(key, iv, wire, cuts)
      expect(fast).toEqual(lib)
      expect(lib[0]).toEqual(["ready", ""])
      expect(lib.filter((e) => e[0] === "data").length).toBe(sizes.length - 1)
    }
  })

  it("a bad handshake answer and a damaged packet fail as the library fails", () => {
    const next = rng(5)
    const key = randomBytes(32)
    const iv = randomBytes(16)
    // the first packet answers the handshake: non-empty is an error event and the socket ended
    const bad = encryptedStream(key, iv, [Buffer.from("x"), Buffer.from("y")], next)
    const a = run(key, iv, bad.wire, randomCuts(next, bad.wire.length, 5))
    expect(a.fast).toEqual(a.lib)
    expect(a.lib.some((e) => e[0] === "error" && e[1].startsWith("ADNLClient: Bad handshake."))).toBe(true)
    // one flipped bit anywhere in a later packet's nonce, payload or hash: the library throws at that packet
    for (let round = 0; round < 20; round++) {
      const s = encryptedStream(key, iv, [Buffer.alloc(0), randomBytesFrom(next, 500), randomBytesFrom(next, 900)], next)
      const at = 72 + 4 + Math.floor(next() * (s.wire.length - 76))
      const wire = Buffer.from(s.wire)
      wire[at] = wire[at]! ^ (1 << Math.floor(next() * 8))
      const packetSizes = [72 + 4, 4 + 64 + 500]
      const inSizeField = at === packetSizes[0] || (at > packetSizes[0]! && at < packetSizes[0]! + 4) || (at >= packetSizes[0]! + packetSizes[1]! && at < packetSizes[0]! + packetSizes[1]! + 4)
      if (inSizeField) continue // a damaged size waits for bytes that never come (both): covered by "waits" below
      const r = run(key, iv, wire, randomCuts(next, wire.length, 8))
      expect(r.fast).toEqual(r.lib)
      expect(r.lib.some((e) => e[0] === "thrown" && e[1] === "ADNLPacket: Bad packet hash.")).toBe(true)
    }
  })

  it("an incomplete packet waits for the rest, in both", () => {
    const next = rng(9)
    const key = randomBytes(32)
    const iv = randomBytes(16)
    const s = encryptedStream(key, iv, [Buffer.alloc(0), randomBytesFrom(next, 4000)], next)
    const r = run(key, iv, s.wire.subarray(0, s.wire.length - 1), [30, 100, 1000])
    expect(r.fast).toEqual(r.lib)
    expect(r.lib).toEqual([["ready", ""]])
  })
})
