/**
 * The body decoder's version: which decoding a store's `messages.decoded_opcode` and `message_contents.decoded`
 * (and the pre-rendered pages made from them) hold. Invariant: a change of any printed body or opcode name comes
 * with a new entry here, so stores ingested before it are re-decoded at their next start (src/store/redecode.ts).
 * Each entry keeps the fingerprint of the decoder's outputs over the recorded marker cases
 * (test/fixtures/ton/marker/marker-outputs.json) and the opcode-name table; test/unit/ton/decoderVersion.test.ts
 * fails when the outputs no longer match the newest fingerprint, so a change cannot ship without a bump.
 */

export interface DecoderRelease {
  readonly version: number
  /** sha256 of `decoderFingerprintText` (test/unit/ton/decoderVersion.test.ts) at this version. */
  readonly fingerprint: string
  readonly note: string
}

/** Oldest first. Append an entry (next version, new fingerprint, one line of what changed); never edit one. */
export const DECODER_RELEASES: ReadonlyArray<DecoderRelease> = [
  {
    version: 1,
    fingerprint: "e1a813a4f0f0b6fc279c1964298fc0bf009334df6ed2cabb17a7c90dcac16b2b",
    note: "first recorded decoder: marker-checked bodies, booleans for one-bit fields, DEX bodies"
  },
  {
    version: 2,
    fingerprint: "7a1e3e4de3cdc7d91df455f717b370634debf1441918d7161812c2b02a6ecd46",
    note: "every constructor the marker printed: op-1 layouts, telemint auctions, sale updates, Blum memepad, jetton mints, preprocessed wallet v2; TL-B bounds checked"
  }
]

/** The version whose decoding this build writes. */
export const BODY_DECODER_VERSION: number = DECODER_RELEASES[DECODER_RELEASES.length - 1]!.version
