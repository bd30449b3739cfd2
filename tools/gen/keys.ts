/**
 * Ed25519 keys for the generator's wallets through Node's native crypto: the pure-JS signer is ~17 ms per signature,
 * which would dominate emulation. Invariant: Ed25519 is deterministic, so signatures equal those of @ton/crypto.
 */
import { createPrivateKey, createPublicKey, sign as signNative } from "node:crypto"

/** DER prefix of a PKCS#8 Ed25519 private key; the 32-byte seed follows it. */
const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex")

export interface GenKey {
  readonly publicKey: Buffer
  readonly sign: (data: Buffer) => Buffer
}

export const keyFromSeed = (seed: Buffer): GenKey => {
  const priv = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: "der", type: "pkcs8" })
  const publicKey = Buffer.from(createPublicKey(priv).export({ format: "der", type: "spki" }).subarray(-32))
  return { publicKey, sign: (data) => signNative(null, data, priv) }
}
