/**
 * Points @ton/core's cell hashing at node:crypto's SHA-256 instead of its pure-JS fallback, which dominates the cost
 * of building cells (every `endCell` hashes). Invariant: the digest is the same SHA-256, so every cell, hash and BOC
 * is bit-identical to what the unpatched library produces; only speed changes (generation, and ~20-30% of decoding,
 * which hashes every cell it parses).
 */
import { createHash } from "node:crypto"
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)

let installed = false

export const installFastCellHash = (): void => {
  if (installed) return
  installed = true
  try {
    const primitives = require("@ton/crypto/dist/primitives/sha256.js") as {
      sha256_sync: (source: Buffer | string) => Buffer
    }
    const slow = primitives.sha256_sync
    const fast = (source: Buffer | string): Buffer => createHash("sha256").update(source).digest()
    // keep the library's own implementation if ours ever disagreed with it
    if (fast("ton").equals(slow("ton"))) primitives.sha256_sync = fast
  } catch {
    // a different @ton/crypto layout only costs speed
  }
}
