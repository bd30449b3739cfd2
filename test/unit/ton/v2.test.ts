/**
 * v2 golden tests: every real `raw.transaction` with its BOC in test/fixtures/real/v2 is decoded and rendered, and
 * compared with what toncenter returned. Differences by server generation, and how each fixture is treated:
 *
 * | fixture | method / generation | treatment |
 * |---|---|---|
 * | blockpi getBlockTransactionsExt mc 39984096 | Python THA, Aug 2024 | whole response byte for byte (key order
 *   too) after removing `raw.message.hash` and `extra_currencies`, which tonlib added in Oct/Nov 2024 and we serve |
 * | blockpi getTransactions (TRUNCATED by author) | Python, Aug 2024 | only `data`, `transaction_id`: hash, lt |
 * | getblock-docs getTransactions, tryLocate* | Python, Jun 2023, keys sorted and `address` removed by the author |
 *   converted (README "Known quirks"), compared as key sets without `address`; tryLocateSourceTx lists 1 of its 2
 *   out messages (author trimmed), so only the listed one is checked |
 * | drpc-nextra tryLocateResultTx | Python, Nov 2024, missing `{` | brace restored, converted, exact key order |
 * | padton JS object literal | Python, testnet | literal converted to JSON, converted, exact key order |
 * | typegoose text comment | Python, testnet 2024 | converted, exact key order (`msg.dataText`) |
 * | aiotx cassettes getTransactions | Python, testnet May 2024 | converted, exact key order |
 * | ton-org-docs v2-pagination (C++ `raw.transactionExt`) | C++ THC 2026 | not a pair: carries no BOC; not used |
 *
 * "Converted" = message `source`/`destination` strings become `{"@type":"accountAddress","account_address":...}`,
 * the deprecated `message` helper field is dropped, and our `account` field (Ext only) is not compared.
 */
import { describe, expect, it } from "vitest"
import { Address } from "@ton/core"
import { decodeTransaction } from "../../../src/ton/decode.js"
import type { BlockIdExt, TransactionRecord } from "../../../src/ton/record.js"
import { renderV2BlockTransactionsExt, renderV2Transaction, v2Fees } from "../../../src/ton/v2.js"
import { expectGolden, ok, readReal, readRealJson, yamlResponseBodies } from "./support.js"

const blockOf = (friendly: string): BlockIdExt => ({
  workchain: Address.parse(friendly).workChain,
  shard: "-9223372036854775808",
  seqno: 0,
  root_hash: "",
  file_hash: ""
})

/** The account's workchain: from `address`, or (getblock-docs, which omit `address`) from a message. */
const friendlyOf = (tx: any): string => {
  const plain = (a: any) => (typeof a === "string" ? a : a?.account_address)
  return tx.address?.account_address ?? plain(tx.in_msg?.destination) ?? plain(tx.out_msgs[0]?.source)
}

const decodeV2 = (tx: any): TransactionRecord =>
  ok(decodeTransaction(tx.data, { block: blockOf(friendlyOf(tx)), mc_block_seqno: 0 }))

/** pytonlib getTransactions / tryLocate* messages to the getBlockTransactionsExt shape. */
const toExtMessage = (m: any): any => {
  const out: any = {}
  for (const [k, v] of Object.entries(m)) {
    if (k === "message") continue
    const isAddress = (k === "source" || k === "destination") && typeof v === "string"
    out[k] = isAddress ? { "@type": "accountAddress", account_address: v } : v
  }
  return out
}
const toExtShape = (tx: any): any => ({
  ...tx,
  ...(tx.in_msg ? { in_msg: toExtMessage(tx.in_msg) } : {}),
  out_msgs: tx.out_msgs.map(toExtMessage)
})

/** Our rendering restricted to the fields that fixture's server generation has. */
const asGeneration = (ours: any, expected: any): any => {
  const trim = (m: any, e: any) => {
    const c = { ...m }
    if (e && !("hash" in e)) delete c.hash
    if (e && !("extra_currencies" in e)) delete c.extra_currencies
    return c
  }
  const out: any = { ...ours }
  if (!("account" in expected)) delete out.account
  if (!("address" in expected)) delete out.address
  if (out.in_msg) out.in_msg = trim(out.in_msg, expected.in_msg)
  out.out_msgs = out.out_msgs.map((m: any, i: number) => trim(m, expected.out_msgs[i] ?? expected.out_msgs[0]))
  return out
}

const sortKeys = (v: any): any =>
  Array.isArray(v)
    ? v.map(sortKeys)
    : v !== null && typeof v === "object"
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]))
      : v

const compare = (expectedRaw: any, keyOrder: "exact" | "sorted") => {
  const expected = toExtShape(expectedRaw)
  const ours = asGeneration(renderV2Transaction(decodeV2(expectedRaw)), expected)
  if (keyOrder === "exact") expect(JSON.stringify(ours)).toBe(JSON.stringify(expected))
  else expect(sortKeys(ours)).toEqual(sortKeys(expected))
  return ours
}

describe("v2 getBlockTransactionsExt: BlockPI mc 39984096 (Python ton-http-api)", () => {
  const fixture = readRealJson("v2/blockpi-official-docs__v2_getBlockTransactionsExt__mc-39984096.json")
  const r = fixture.result
  const { workchain, shard, seqno, root_hash, file_hash } = r.id
  const id: BlockIdExt = { workchain, shard, seqno, root_hash, file_hash }
  const txs = r.transactions.map((t: any) => ok(decodeTransaction(t.data, { block: id, mc_block_seqno: r.id.seqno })))
  const rendered = renderV2BlockTransactionsExt({
    id,
    req_count: r.req_count,
    incomplete: r.incomplete,
    transactions: txs,
    extra: r["@extra"]
  })

  it("reproduces the response byte for byte, apart from the two message fields tonlib added after Aug 2024", () => {
    const generation = JSON.parse(JSON.stringify(rendered))
    for (const t of generation.transactions) {
      for (const m of [t.in_msg, ...t.out_msgs].filter(Boolean)) {
        delete m.hash
        delete m.extra_currencies
      }
    }
    const original = readReal("v2/blockpi-official-docs__v2_getBlockTransactionsExt__mc-39984096.json").trimEnd()
    expect(JSON.stringify({ ok: true, result: generation }, null, 2)).toBe(original)
  })

  it("serves the current Python shape (message hash and extra_currencies in tonlib's key order)", () => {
    const m = rendered.transactions[1]!.in_msg!
    expect(Object.keys(m)).toEqual([
      "@type",
      "hash",
      "source",
      "destination",
      "value",
      "extra_currencies",
      "fwd_fee",
      "ihr_fee",
      "created_lt",
      "body_hash",
      "msg_data"
    ])
    expect(m.hash).toBe(txs[1]!.in_msg!.hash)
    expect(m.extra_currencies).toEqual([])
    expect(rendered.transactions[0]).not.toHaveProperty("in_msg")
    expectGolden("v2-blockpi-getBlockTransactionsExt-39984096", rendered)
  })
})

describe("v2 raw.transaction pairs from other methods (converted to the Ext shape)", () => {
  it("BlockPI getTransactions (truncated by its author): hash and lt", () => {
    const text = readReal(
      "v2/blockpi-official-docs__v2_getTransactions__mainnet_lt-48756545000001__" +
        "TRUNCATED-by-author__boc-and-hash-only.txt"
    )
    const data = /"data": "([^"]+)"/.exec(text)![1]!
    const block = blockOf("EQD6FHZ8Bm5K82FcRVV76SOAzB52VqOlWpgeNODQkJ9AV0aR")
    const rec = ok(decodeTransaction(data, { block, mc_block_seqno: 0 }))
    expect(rec.hash).toBe("JseckUUQ5BOUW3fAmggsXknXxQGwtoVwuo1/qTuDRDo=")
    expect(rec.lt).toBe("48756545000001")
  })

  it("getblock-docs getTransactions (Jun 2023, keys sorted by the author)", () => {
    const f = readRealJson("v2/getblock-docs__v2_getTransactions__mainnet_lt-38656162000001__with-boc.json")
    expect(f.result.length).toBeGreaterThan(0)
    for (const t of f.result) compare(t, "sorted")
    const rendered = f.result.map((t: any) => renderV2Transaction(decodeV2(t)))
    expectGolden("v2-getblock-getTransactions-38656162000001", rendered)
  })

  it("getblock-docs tryLocateTx and tryLocateResultTx", () => {
    for (const name of ["tryLocateTx__mainnet_lt-38633831000015", "tryLocateResultTx__mainnet_lt-38633831000015"]) {
      compare(readRealJson(`v2/getblock-docs__v2_${name}__with-boc.json`).result, "sorted")
    }
  })

  it("getblock-docs tryLocateSourceTx: everything but the out message its author removed", () => {
    const t = readRealJson("v2/getblock-docs__v2_tryLocateSourceTx__mainnet_lt-38633831000012__with-boc.json").result
    const ours = renderV2Transaction(decodeV2(t))
    expect(ours.out_msgs.length).toBe(2)
    expect(t.out_msgs.length).toBe(1)
    const listed = toExtMessage(t.out_msgs[0])
    const match = ours.out_msgs.find((m) => m.created_lt === listed.created_lt)!
    expect(sortKeys(asGeneration({ ...ours, out_msgs: [match] }, { ...toExtShape(t), out_msgs: [listed] }))).toEqual(
      sortKeys({ ...toExtShape(t), out_msgs: [listed] })
    )
  })

  it("drpc-nextra tryLocateResultTx (Nov 2024, text comment in-message)", () => {
    const file = "v2/drpc-nextra__v2_tryLocateResultTx__mainnet_lt-47597573000003__with-boc__MISSING-opening-brace.txt"
    const t = JSON.parse("{" + readReal(file)).result
    const ours = compare(t, "exact")
    expect(ours.in_msg.msg_data["@type"]).toBe("msg.dataText")
  })

  it("padton testnet transaction given as a JS object literal", () => {
    const literal = readReal(
      "v2/padton-ton-backend-example__v2_raw.transaction__lt-22838801000001__with-boc__JS-object-literal.txt"
    )
    const body = literal.slice(literal.indexOf("{"), literal.lastIndexOf("}") + 1)
    const json = body
      .replace(/'((?:[^'\\]|\\.)*)'/g, (_, s: string) => JSON.stringify(s.replace(/\\n/g, "\n")))
      .replace(/^(\s*)([A-Za-z_][\w]*):/gm, '$1"$2":')
      .replace(/,(\s*[}\]])/g, "$1")
    const ours = compare(JSON.parse(json), "exact")
    expect(ours.in_msg.msg_data["@type"]).toBe("msg.dataRaw")
  })

  it("typegoose testnet text comment", () => {
    const file =
      "v2/unknown-repo-typegoose-model__v2_raw.transaction__testnet_lt-19565387000004__with-boc__text-comment.json"
    const ours = compare(readRealJson(file), "exact")
    expect(ours.in_msg.msg_data).toEqual({ "@type": "msg.dataText", text: "aHR0cHM6Ly90Lm1lL3Rlc3RnaXZlcl90b25fYm90" })
  })

  it("aiotx cassettes: every recorded testnet getTransactions transaction", () => {
    const bodies = yamlResponseBodies(readReal("v2/aiotx-vcr-cassettes__testnet-toncenter-v2/get_transactions.yaml"))
    const txs = bodies.flatMap((b) => JSON.parse(b).result).filter((t: any) => t && t.data)
    expect(txs.length).toBeGreaterThan(0)
    for (const t of txs) compare(t, "exact")
  })

  it("fee = total fees + forward fees of internal out messages; other_fee = fee - storage_fee", () => {
    const t = readRealJson("v2/getblock-docs__v2_tryLocateSourceTx__mainnet_lt-38633831000012__with-boc.json").result
    const rec = decodeV2(t)
    const fwd = rec.out_msgs.reduce((s, m) => s + BigInt(m.fwd_fee ?? "0"), 0n)
    expect(v2Fees(rec).fee).toBe((BigInt(rec.total_fees) + fwd).toString())
    expect(v2Fees(rec).fee).toBe(t.fee)
    expect(fwd > 0n).toBe(true)
  })
})
