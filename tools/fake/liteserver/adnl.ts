/**
 * The server side of ADNL over TCP as liteservers speak it: the 256-byte handshake (x25519 secret from the server's
 * ed25519 key and the client's ephemeral ed25519 key, AES-256-CTR session keys carried encrypted in it), then
 * length-prefixed packets of a 32-byte nonce, the payload and a SHA-256 checksum, each direction its own CTR stream.
 * Invariant: a connection that fails the handshake or a checksum is closed; nothing is answered before the handshake.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  randomBytes,
  type Cipher,
  type Decipher,
  type KeyObject
} from "node:crypto"
import type { Socket } from "node:net"

const P = (1n << 255n) - 19n

const modPow = (b: bigint, e: bigint): bigint => {
  let r = 1n
  let x = b % P
  while (e > 0n) {
    if (e & 1n) r = (r * x) % P
    x = (x * x) % P
    e >>= 1n
  }
  return r
}

const leToBig = (b: Uint8Array): bigint => {
  let v = 0n
  for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!)
  return v
}

const bigToLe32 = (v: bigint): Buffer => {
  const out = Buffer.alloc(32)
  for (let i = 0; i < 32; i++) {
    out[i] = Number(v & 255n)
    v >>= 8n
  }
  return out
}

/** The Montgomery u-coordinate of an Edwards25519 point given by its encoding: u = (1 + y) / (1 - y). */
export const edwardsToMontgomery = (edPublic: Uint8Array): Buffer => {
  const y = leToBig(edPublic) & ((1n << 255n) - 1n)
  const num = (1n + y) % P
  const den = (P + 1n - y) % P
  return bigToLe32((num * modPow(den, P - 2n)) % P)
}

const X25519_PKCS8 = Buffer.from("302e020100300506032b656e04220420", "hex")
const X25519_SPKI = Buffer.from("302a300506032b656e032100", "hex")
const ED25519_PKCS8 = Buffer.from("302e020100300506032b657004220420", "hex")

export interface ServerKey {
  /** The 32-byte ed25519 seed. */
  readonly seed: Buffer
  /** The 32-byte ed25519 public key clients are configured with. */
  readonly publicKey: Buffer
  /** sha256 of the TL-boxed key (pub.ed25519): the id a client's handshake must name. */
  readonly keyId: Buffer
  readonly x25519: KeyObject
}

/** A server key from a 32-byte seed (random when absent). */
export const serverKey = (seed: Buffer = randomBytes(32)): ServerKey => {
  const ed = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8, seed]),
    format: "der",
    type: "pkcs8"
  })
  const jwk = createPublicKey(ed).export({ format: "jwk" })
  const publicKey = Buffer.from(jwk.x!, "base64url")
  // the x25519 scalar of an ed25519 key is the first half of sha512(seed); X25519 clamps it itself
  const scalar = createHash("sha512").update(seed).digest().subarray(0, 32)
  const x25519 = createPrivateKey({
    key: Buffer.concat([X25519_PKCS8, scalar]),
    format: "der",
    type: "pkcs8"
  })
  const keyId = createHash("sha256")
    .update(Buffer.from([0xc6, 0xb4, 0x13, 0x48]))
    .update(publicKey)
    .digest()
  return { seed, publicKey, keyId, x25519 }
}

export const randomServerKey = (): ServerKey => {
  const { privateKey } = generateKeyPairSync("ed25519")
  return serverKey(Buffer.from(privateKey.export({ format: "jwk" }).d!, "base64url"))
}

const sha256 = (...parts: ReadonlyArray<Uint8Array>): Buffer => {
  const h = createHash("sha256")
  for (const p of parts) h.update(p)
  return h.digest()
}

export const HANDSHAKE_BYTES = 256

export interface AdnlConnection {
  /** Sends one payload as an encrypted packet (a no-op once closed). */
  readonly send: (payload: Buffer) => void
  readonly close: () => void
  readonly destroy: () => void
}

/**
 * Runs the server side of one TCP connection: `onPayload` gets every decrypted packet payload after the handshake.
 * `onError` gets protocol failures (the connection is closed after it).
 */
export const serveAdnl = (
  socket: Socket,
  key: ServerKey,
  onPayload: (payload: Buffer, conn: AdnlConnection) => void,
  onError: (e: Error) => void = () => {}
): AdnlConnection => {
  let buf = Buffer.alloc(0)
  let rx: Decipher | undefined
  let tx: Cipher | undefined
  let closed = false
  const conn: AdnlConnection = {
    send: (payload) => {
      if (closed || tx === undefined || socket.destroyed) return
      const nonce = randomBytes(32)
      const size = Buffer.alloc(4)
      size.writeUInt32LE(payload.length + 64)
      socket.write(tx.update(Buffer.concat([size, nonce, payload, sha256(nonce, payload)])))
    },
    close: () => {
      closed = true
      socket.end()
    },
    destroy: () => {
      closed = true
      socket.destroy()
    }
  }
  const fail = (e: Error) => {
    onError(e)
    conn.destroy()
  }
  const handshake = (h: Buffer) => {
    const keyId = h.subarray(0, 32)
    const clientPub = h.subarray(32, 64)
    const hash = h.subarray(64, 96)
    if (!keyId.equals(key.keyId)) return fail(new Error("handshake names another server key"))
    const shared = diffieHellman({
      privateKey: key.x25519,
      publicKey: createPublicKey({
        key: Buffer.concat([X25519_SPKI, edwardsToMontgomery(clientPub)]),
        format: "der",
        type: "spki"
      })
    })
    const k = Buffer.concat([shared.subarray(0, 16), hash.subarray(16, 32)])
    const iv = Buffer.concat([hash.subarray(0, 4), shared.subarray(20, 32)])
    const params = createDecipheriv("aes-256-ctr", k, iv).update(h.subarray(96, 256))
    if (!sha256(params).equals(hash)) return fail(new Error("handshake parameters do not match their hash"))
    // the client encrypts with bytes 32..64 / 80..96 and decrypts with 0..32 / 64..80
    rx = createDecipheriv("aes-256-ctr", params.subarray(32, 64), params.subarray(80, 96))
    tx = createCipheriv("aes-256-ctr", params.subarray(0, 32), params.subarray(64, 80))
    conn.send(Buffer.alloc(0))
  }
  socket.on("data", (chunk: Buffer) => {
    if (closed) return
    try {
      if (rx === undefined) {
        buf = Buffer.concat([buf, chunk])
        if (buf.length < HANDSHAKE_BYTES) return
        const rest = buf.subarray(HANDSHAKE_BYTES)
        handshake(buf.subarray(0, HANDSHAKE_BYTES))
        if (rx === undefined) return
        buf = Buffer.alloc(0)
        if (rest.length === 0) return
        chunk = rest
      }
      buf = Buffer.concat([buf, rx.update(chunk)])
      while (buf.length >= 4) {
        const size = buf.readUInt32LE(0)
        if (size < 64 || size > 1 << 24) return fail(new Error(`bad packet size ${size}`))
        if (buf.length < 4 + size) return
        const nonce = buf.subarray(4, 36)
        const payload = buf.subarray(36, 4 + size - 32)
        const sum = buf.subarray(4 + size - 32, 4 + size)
        if (!sha256(nonce, payload).equals(sum)) return fail(new Error("packet checksum mismatch"))
        const p = Buffer.from(payload)
        buf = buf.subarray(4 + size)
        if (p.length > 0) onPayload(p, conn)
      }
    } catch (e) {
      fail(e instanceof Error ? e : new Error(String(e)))
    }
  })
  socket.on("error", () => {
    closed = true
  })
  socket.on("close", () => {
    closed = true
  })
  return conn
}
