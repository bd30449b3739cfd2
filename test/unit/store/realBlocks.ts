/**
 * Real mainnet blocks from the real fixtures, decoded by the project's own decoder into masterchain bundles (one
 * per block; a shard block gets a stand-in record of the masterchain block that commits it). Used to check the
 * storage layer on real transactions and to measure bytes on disk against raw BOC bytes.
 */
import { Either } from "effect"
import { readFileSync } from "node:fs"
import { extractBlock, toBlockRecord, type BlockHeaderSummary } from "../../../src/ton/block.js"
import { decodeTransaction } from "../../../src/ton/decode.js"
import type { BlockIdExt, BlockRecord, MasterchainBundle } from "../../../src/ton/record.js"
import { blockRecord, FIXTURES, idExt } from "./records.js"

const MAINNET_BLOCKS = [
  "mainnet__0_8000000000000000_30816553__tongo-block-1.boc",
  "mainnet__0_8000000000000000_40484416__tongo-block-2.boc",
  "mainnet__0_8000000000000000_40484438__tongo-block-3.boc",
  "mainnet__-1_8000000000000000_17734191__tongo-block-5.boc",
  "mainnet__0_a000000000000000_54302208__tongo-block-6.boc",
  "mainnet__0_a000000000000000_54302203__tongo-block-7.boc",
  "mainnet__0_8000000000000000_34703989__ton-core-block.b64.txt",
  "mainnet__-1_8000000000000000_24374597__ton4j-boc-6.hex.txt"
]

const readBlockFile = (name: string): Uint8Array => {
  const raw = readFileSync(`${FIXTURES}/blocks/${name}`)
  if (name.endsWith(".hex.txt")) return Buffer.from(raw.toString("utf8").trim(), "hex")
  if (name.endsWith(".b64.txt")) return Buffer.from(raw.toString("utf8").trim(), "base64")
  return raw
}

const headerRecord = (h: BlockHeaderSummary, mcSeqno: number): BlockRecord => toBlockRecord(h, mcSeqno)

export interface RealBlocks {
  readonly bundles: ReadonlyArray<MasterchainBundle>
  /** Sum of the transaction BOCs as bytes (what toncenter serves as v2 `data`). */
  readonly rawBocBytes: number
}

export const realBlockBundles = (): RealBlocks => {
  const bundles: Array<MasterchainBundle> = []
  let rawBocBytes = 0
  for (const name of MAINNET_BLOCKS) {
    const block = Either.getOrThrow(extractBlock(readBlockFile(name)))
    const h = block.header
    const mcSeqno = h.workchain === -1 ? h.seqno : h.master_ref!.seqno
    const id: BlockIdExt = { workchain: h.workchain, shard: h.shard, seqno: h.seqno, root_hash: h.root_hash, file_hash: h.file_hash }
    const transactions = block.transactions.map((t) => {
      rawBocBytes += Buffer.from(t.boc, "base64").length
      return Either.getOrThrow(decodeTransaction(t.boc, { block: id, mc_block_seqno: mcSeqno }))
    })
    const self = headerRecord(h, mcSeqno)
    const mcBlock = h.workchain === -1 ? self : blockRecord(idExt(-1, "-9223372036854775808", mcSeqno), mcSeqno, 0, [])
    bundles.push({
      schema_version: 1,
      network: "mainnet",
      mc_seqno: mcSeqno,
      mc_block: mcBlock,
      shard_blocks: h.workchain === -1 ? [] : [self],
      shard_tops:
        h.workchain === -1
          ? (h.shards ?? []).map((s) => ({ workchain: s.workchain, shard: s.shard, seqno: s.seqno, root_hash: s.root_hash, file_hash: s.file_hash }))
          : [id],
      transactions,
      account_states: [],
      code_hashes: {}
    })
  }
  return { bundles, rawBocBytes }
}
