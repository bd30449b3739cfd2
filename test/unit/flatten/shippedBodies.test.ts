// The consumer's rows from a bundle record that brought its bodies' texts (`decoded_bodies`): the same rows as
// decoding the bodies here when the record is of this build's body decoder release, the shipped texts taken as they
// are (the local decoder is not asked), and the local decoding when the record is of another release, lacks the field
// or holds it malformed. Over the bundled chain of recorded real transactions, through the producer's record.
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { flattenBundles, type TableRows } from "../../../src/flatten/index.js"
import { decodeBundle } from "../../../src/kafka/codec.js"
import { assembleBundle, pipelineDecode, prepare } from "../../../src/producer/assemble.js"
import { BODY_DECODER_VERSION } from "../../../src/ton/bodies/version.js"
import type { MasterchainBundle } from "../../../src/ton/record.js"
import { fixturesChain } from "../../../tools/fake/server.js"
import { rawBundle } from "../../support/pipeline/chainUpstream.js"

const chain = fixturesChain()

/** Per masterchain block: the bundle as decoded, and the record the producer publishes for it, as the consumer reads it. */
const blocks = Array.from({ length: chain.last - chain.first + 1 }, (_, i) => {
  const assembled = assembleBundle(rawBundle(chain, chain.first + i)!, chain.network, pipelineDecode)
  const record = decodeBundle(prepare(assembled).bundle!.value)
  if (Either.isLeft(record)) throw record.left
  return { bundle: assembled.bundle, record: record.right }
})

const rows = (bs: ReadonlyArray<MasterchainBundle>): TableRows => flattenBundles(bs)
const local = rows(blocks.map((b) => b.bundle))

/** The records, the first one with three texts or more changed by `edit` (a copy: nothing shared is touched). */
const edited = (edit: (record: MasterchainBundle) => MasterchainBundle): Array<MasterchainBundle> => {
  const at = blocks.findIndex((b) => Object.keys(b.record.decoded_bodies!.texts).length >= 3)
  expect(at).toBeGreaterThanOrEqual(0)
  return blocks.map((b, i) => (i === at ? edit(structuredClone(b.record)) : b.record))
}

const decodedOf = (r: TableRows, hash: string) => r.message_contents.find((c) => c.hash === hash)!.decoded

describe("bodies' texts shipped in the bundle record", () => {
  it("give the rows the local decoding gives, byte for byte", () => {
    const shipped = blocks.reduce((n, b) => n + Object.keys(b.record.decoded_bodies!.texts).length, 0)
    expect(shipped).toBeGreaterThan(100)
    expect(blocks.every((b) => b.record.decoded_bodies!.decoder_version === BODY_DECODER_VERSION)).toBe(true)
    expect(rows(blocks.map((b) => b.record))).toEqual(local)
  })

  it("are taken as shipped at this release: the local decoder is not asked", () => {
    let changed = ""
    let dropped = ""
    let seqno = 0
    const records = edited((r) => {
      seqno = r.mc_seqno
      const texts = { ...r.decoded_bodies!.texts }
      const [a, b] = Object.keys(texts)
      changed = a!
      dropped = b!
      texts[changed] = '{"@type":"shipped"}'
      delete texts[dropped]
      return { ...r, decoded_bodies: { decoder_version: BODY_DECODER_VERSION, texts } }
    })
    const r = rows(records)
    expect(decodedOf(local, changed)).not.toBeNull()
    expect(decodedOf(r, changed)).toBe('{"@type":"shipped"}')
    // A body the texts do not name is one whose decoding is null, as the producer ships only the others.
    expect(decodedOf(local, dropped)).not.toBeNull()
    expect(decodedOf(r, dropped)).toBeNull()
    // The block's pages carry the same texts as the rows (other blocks with the body brought its true text).
    const pages = r.tx_pages.filter((p) => p.mc_block_seqno === seqno && p.v3.includes(`"hash":"${changed}"`))
    expect(pages.length).toBeGreaterThan(0)
    for (const p of pages) expect(p.v3).toContain(`"hash":"${changed}","body":`)
    for (const p of pages) expect(p.v3).toContain(',"decoded":{"@type":"shipped"}}')
    const page = r.v3_pages.find((p) => p.mc_block_seqno === seqno)!
    expect(page.lines.some((l) => l.includes('"decoded":{"@type":"shipped"}'))).toBe(true)
    expect(local.v3_pages.some((p) => p.lines.some((l) => l.includes('"decoded":{"@type":"shipped"}')))).toBe(false)
  })

  it.each([
    ["of another release", (r: MasterchainBundle) => ({ ...r, decoded_bodies: { ...r.decoded_bodies!, decoder_version: BODY_DECODER_VERSION + 1 } })],
    ["of an older release", (r: MasterchainBundle) => ({ ...r, decoded_bodies: { ...r.decoded_bodies!, decoder_version: BODY_DECODER_VERSION - 1 } })],
    ["without the field", (r: MasterchainBundle) => {
      const { decoded_bodies: _, ...rest } = r
      return rest
    }],
    ["with a text that is not a string", (r: MasterchainBundle) => ({
      ...r,
      decoded_bodies: { ...r.decoded_bodies!, texts: { ...r.decoded_bodies!.texts, x: 1 as unknown as string } }
    })],
    ["with texts that are not an object", (r: MasterchainBundle) => ({
      ...r,
      decoded_bodies: { decoder_version: BODY_DECODER_VERSION, texts: null as unknown as Record<string, string> }
    })]
  ])("are decoded here from a record %s, to the same rows", (_, change) => {
    // Wrong texts in it: were they taken, the rows would differ from the local decoding's.
    const records = edited((r) => {
      const texts = Object.fromEntries(Object.keys(r.decoded_bodies!.texts).map((h) => [h, '{"@type":"wrong"}']))
      return change({ ...r, decoded_bodies: { decoder_version: BODY_DECODER_VERSION, texts } })
    })
    expect(rows(records)).toEqual(local)
  })
})
