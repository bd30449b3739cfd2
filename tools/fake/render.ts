/**
 * Renders chain data in toncenter v2's JSON (the Python server's shapes: tonlib `@type`s, int64 as strings, bytes
 * as standard base64, `account` appended as "wc:hex" lower case). Invariant: `data` is the stored BOC untouched; the
 * other fields are derived from that BOC with @ton/core, so they always agree with it.
 */
import { Address, beginCell, Cell, Dictionary, loadMessage, loadTransaction, storeStateInit } from "@ton/core"
import type { Message } from "@ton/core"
import { serializeBoc } from "../../src/ton/boc.js"
import type { BlockRecord } from "../../src/ton/record.js"
import { renderV2BlockIdExt } from "../../src/ton/v2.js"
import type { ChainTx } from "./ChainData.js"

export const extra = (): string => `${(Date.now() / 1000 + 10).toFixed(7)}:0:${Math.random()}`

export const blockHeaderJson = (r: BlockRecord) => ({
  "@type": "blocks.header",
  id: renderV2BlockIdExt(r.id),
  global_id: r.global_id,
  version: r.version,
  flags: r.flags,
  after_merge: r.after_merge,
  after_split: r.after_split,
  before_split: r.before_split,
  want_merge: r.want_merge,
  want_split: r.want_split,
  validator_list_hash_short: r.validator_list_hash_short,
  catchain_seqno: r.gen_catchain_seqno,
  min_ref_mc_seqno: r.min_ref_mc_seqno,
  is_key_block: r.key_block,
  prev_key_block_seqno: r.prev_key_block_seqno,
  start_lt: r.start_lt,
  end_lt: r.end_lt,
  gen_utime: r.gen_utime,
  vert_seqno: r.vert_seqno,
  prev_blocks: r.prev_blocks.map(renderV2BlockIdExt),
  "@extra": extra()
})

const friendly = (a: Address | null | undefined): string =>
  a instanceof Address ? a.toString({ urlSafe: true, bounceable: true, testOnly: false }) : ""

const boc = (c: Cell): string => serializeBoc(c).toString("base64")

const msgData = (m: Message) => {
  const body = m.body
  const s = body.beginParse()
  if (s.remainingBits >= 32 && s.preloadUint(32) === 0 && m.init == null) {
    try {
      s.skip(32)
      const text = s.loadStringTail()
      return { "@type": "msg.dataText", text: Buffer.from(text, "utf8").toString("base64") }
    } catch {
      // not a snake string: falls through to the raw form, as tonlib does
    }
  }
  return {
    "@type": "msg.dataRaw",
    body: boc(body),
    init_state: m.init ? boc(beginCell().store(storeStateInit(m.init)).endCell()) : ""
  }
}

const rawMessage = (cell: Cell) => {
  const m = loadMessage(cell.beginParse())
  const i = m.info
  return {
    "@type": "raw.message",
    hash: cell.hash().toString("base64"),
    source: { "@type": "accountAddress", account_address: i.type === "external-in" ? "" : friendly(i.src) },
    destination: { "@type": "accountAddress", account_address: i.type === "external-out" ? "" : friendly(i.dest) },
    value: i.type === "internal" ? i.value.coins.toString() : "0",
    extra_currencies: [],
    fwd_fee: i.type === "internal" ? i.forwardFee.toString() : "0",
    ihr_fee: "0",
    created_lt: i.type === "external-in" ? "0" : i.createdLt.toString(),
    body_hash: m.body.hash().toString("base64"),
    msg_data: msgData(m)
  }
}

const RefValue = {
  serialize: (c: Cell, b: import("@ton/core").Builder) => b.storeRef(c),
  parse: (s: import("@ton/core").Slice) => s.loadRef()
}

export const rawTransactionJson = (tx: ChainTx) => {
  const cell = Cell.fromBase64(tx.boc)
  const t = loadTransaction(cell.beginParse())
  const msgs = cell.refs[0]!.beginParse()
  const inCell = msgs.loadMaybeRef()
  const outCells = msgs.loadDict(Dictionary.Keys.Uint(15), RefValue)
  const outs = [...outCells.keys()].sort((a, b) => a - b).map((k) => outCells.get(k)!)
  let fwd = 0n
  for (const m of t.outMessages.values()) if (m.info.type === "internal") fwd += m.info.forwardFee + m.info.ihrFee
  const fee = t.totalFees.coins + fwd
  const d = t.description
  const storage = "storagePhase" in d && d.storagePhase ? d.storagePhase.storageFeesCollected : 0n
  const [wc, hex] = tx.account.split(":") as [string, string]
  const address = new Address(Number(wc), Buffer.from(hex, "hex"))
  return {
    "@type": "raw.transaction",
    address: { "@type": "accountAddress", account_address: friendly(address) },
    utime: t.now,
    data: tx.boc,
    transaction_id: { "@type": "internal.transactionId", lt: tx.lt, hash: tx.hash },
    fee: fee.toString(),
    storage_fee: storage.toString(),
    other_fee: (fee - storage).toString(),
    ...(inCell ? { in_msg: rawMessage(inCell) } : {}),
    out_msgs: outs.map(rawMessage),
    account: `${wc}:${hex.toLowerCase()}`
  }
}
