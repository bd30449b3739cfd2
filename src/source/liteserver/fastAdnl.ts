/**
 * Run-time replacements of the `adnl` package's hot paths, for a liteserver source that moves whole blocks: the
 * package encrypts and decrypts with aes-js (AES-CTR in JavaScript), hashes every packet with @noble/hashes' SHA-256
 * after spreading nonce and payload into a JavaScript array, and concatenates its receive buffer with every chunk
 * the socket delivers (a 1 MB block in 64 kB chunks is copied ~16 times). Measured on the producer's main thread in a
 * liteserver backfill (BENCHMARKS.md): ~12% of its busy samples were these. Installed, each piece is the same
 * algorithm on Node's own primitives: AES-256-CTR and SHA-256 from node:crypto, and a receive path that keeps the
 * chunks as they come and joins a packet's bytes once, when the packet is whole.
 * Invariants: the bytes on the wire and the events a client emits (ready, data with each payload, the same errors for
 * a bad handshake or a bad packet hash, thrown from the same call) are the library's own; the library stays the
 * reference (test/unit/source/fastAdnl.test.ts runs both over the same keys and streams, cut at random points).
 * Installed explicitly by the liteserver source, never by importing a module.
 */
import { createCipheriv, createDecipheriv, createHash } from "node:crypto"
import { createRequire } from "node:module"
import { ADNLClient, ADNLClientState } from "adnl/dist/client.js"
import { ADNLPacket, PACKET_MIN_SIZE } from "adnl/dist/packet.js"

/** Receive state of one client, kept beside the library's own fields. */
interface Receive {
  /** Decrypted chunks not yet consumed, oldest first; the first may be partly consumed (see `offset`). */
  chunks: Array<Buffer>
  /** Bytes of `chunks[0]` already consumed. */
  offset: number
  /** Unconsumed bytes over all chunks. */
  size: number
}

/** What `fastOnData` uses of a client: the library's decipher, state and handlers, and its own receive state. */
interface Client {
  receive?: Receive
  readonly decipher: { update(data: Buffer): Buffer | Uint8Array }
  readonly state: ADNLClientState
  onError(error: Error, close?: boolean): void
  onReady(): void
  emit(event: "data", payload: Buffer): boolean
}

/** The library's cipher objects (`update`, `final`) built on node:crypto; the algorithm is always AES-256-CTR. */
const nodeCipher = (_algo: string, key: Uint8Array, iv: Uint8Array) => createCipheriv("aes-256-ctr", key, iv)
const nodeDecipher = (_algo: string, key: Uint8Array, iv: Uint8Array) => createDecipheriv("aes-256-ctr", key, iv)

/** `n` bytes from the front of the receive state, consumed (joined only when they span chunks). */
const take = (r: Receive, n: number): Buffer => {
  const first = r.chunks[0]!
  let out: Buffer
  if (first.length - r.offset >= n) {
    out = first.subarray(r.offset, r.offset + n)
    r.offset += n
  } else {
    out = Buffer.allocUnsafe(n)
    let filled = 0
    while (filled < n) {
      const c = r.chunks[0]!
      const k = Math.min(c.length - r.offset, n - filled)
      c.copy(out, filled, r.offset, r.offset + k)
      filled += k
      r.offset += k
      if (r.offset === c.length) {
        r.chunks.shift()
        r.offset = 0
      }
    }
  }
  while (r.chunks.length > 0 && r.offset === r.chunks[0]!.length) {
    r.chunks.shift()
    r.offset = 0
  }
  r.size -= n
  return out
}

/** The 4-byte little-endian size at the front, without consuming it. */
const peekSize = (r: Receive): number => {
  const first = r.chunks[0]!
  if (first.length - r.offset >= 4) return first.readUInt32LE(r.offset)
  const head = Buffer.allocUnsafe(4)
  let filled = 0
  for (let i = 0, off = r.offset; filled < 4; i++, off = 0) {
    const c = r.chunks[i]!
    const k = Math.min(c.length - off, 4 - filled)
    c.copy(head, filled, off, off + k)
    filled += k
  }
  return head.readUInt32LE(0)
}

/**
 * The library's `onData` over the receive state: decrypt the chunk, then while a whole packet is buffered, check its
 * hash (SHA-256 of nonce and payload), consume it and handle it as the library does: the first packet while
 * connecting is the handshake's answer (empty, or the connection fails), later ones are emitted as data.
 */
export function fastOnData(this: Client, data: Buffer): void {
  const r = (this.receive ??= { chunks: [], offset: 0, size: 0 })
  const plain = this.decipher.update(data)
  const chunk = Buffer.isBuffer(plain) ? plain : Buffer.from(plain.buffer, plain.byteOffset, plain.byteLength)
  if (chunk.length > 0) {
    r.chunks.push(chunk)
    r.size += chunk.length
  }
  while (r.size >= PACKET_MIN_SIZE) {
    const size = peekSize(r)
    if (r.size - 4 < size) break
    // The library slices nonce, payload and hash out of `size` bytes, so a size under 64 gives a shorter payload
    // slice and a hash read from the wrong place: it fails the hash check, as it does here.
    if (size < 64) {
      throw new Error("ADNLPacket: Bad packet hash.")
    }
    take(r, 4)
    const body = take(r, size)
    const nonce = body.subarray(0, 32)
    const payload = body.subarray(32, size - 32)
    const hash = body.subarray(size - 32)
    const target = createHash("sha256").update(nonce).update(payload).digest()
    if (!hash.equals(target)) throw new Error("ADNLPacket: Bad packet hash.")
    if (this.state === ADNLClientState.CONNECTING) {
      if (payload.length !== 0) this.onError(new Error("ADNLClient: Bad handshake."), true)
      else this.onReady()
      break
    }
    this.emit("data", payload)
  }
}

let installed = false

/** Installs the replacements once per process (idempotent). */
export const installFastAdnl = (): void => {
  if (installed) return
  installed = true
  // The package's own exports object (an ES namespace of it would be a frozen copy): its client looks the functions
  // up on it at each call.
  const lib = createRequire(import.meta.url)("adnl/dist/aes.js") as { createCipheriv: unknown; createDecipheriv: unknown }
  lib.createCipheriv = nodeCipher
  lib.createDecipheriv = nodeDecipher
  const proto = ADNLClient.prototype as unknown as { onData: unknown; onBeforeConnect: () => Promise<void> }
  const beforeConnect = proto.onBeforeConnect
  proto.onBeforeConnect = async function (this: Client) {
    await beforeConnect.call(this)
    // a new connection starts with an empty receive state, as the library's own buffer does
    this.receive = { chunks: [], offset: 0, size: 0 }
  }
  proto.onData = fastOnData
  Object.defineProperty(ADNLPacket.prototype, "hash", {
    configurable: true,
    get(this: ADNLPacket) {
      return createHash("sha256").update(this.nonce).update(this.payload).digest()
    }
  })
}
