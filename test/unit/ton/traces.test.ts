/**
 * toncenter's own indexer records (122 mainnet traces, 1,162 transactions) carry no transaction BOCs, but every
 * message has its body BOC, body hash, opcode and state-init hash: check how we derive those from the body cell.
 */
import { describe, expect, it } from "vitest"
import { parseBoc, serializeBocBase64 } from "../../../src/ton/boc.js"
import { bodyOpcode } from "../../../src/ton/decode.js"
import { opcodeHex } from "../../../src/ton/v3.js"
import { ok, readRealJson } from "./support.js"

const messages = [1, 2].flatMap((p) =>
  (readRealJson(`indexer-traces/ton-indexer-tests-traces__decoded__part${p}.json`) as Array<any>).flatMap((t) =>
    t.transactions.flatMap((tx: any) => tx.messages as Array<any>)
  )
)

describe("indexer trace messages", () => {
  it("has thousands of messages with bodies", () => {
    expect(messages.filter((m) => m.message_content?.body).length).toBeGreaterThan(2000)
  })

  it("body hash, opcode (indexer stores it as signed int32) and BOC agree with ours", () => {
    const bad: Array<string> = []
    for (const m of messages) {
      const body = m.message_content?.body
      if (!body) continue
      const cell = ok(parseBoc(body))
      const opcode = bodyOpcode(cell)
      const expectedOpcode = m.opcode === null ? null : m.opcode >>> 0
      if (cell.hash().toString("base64") !== m.body_hash) bad.push(`${m.msg_hash} body hash`)
      if (opcode !== expectedOpcode) bad.push(`${m.msg_hash} opcode ${opcode} != ${expectedOpcode}`)
      if (serializeBocBase64(cell) !== body) bad.push(`${m.msg_hash} boc`)
    }
    expect(bad).toEqual([])
  })

  it("renders opcodes like ton-index-go ('0x%08x' of the unsigned value)", () => {
    const negative = messages.find((m) => typeof m.opcode === "number" && m.opcode < 0)!
    expect(negative).toBeDefined()
    expect(opcodeHex(negative.opcode >>> 0)).toBe(`0x${(negative.opcode >>> 0).toString(16).padStart(8, "0")}`)
    expect(opcodeHex(0)).toBe("0x00000000")
    expect(opcodeHex(0x0f8a7ea5)).toBe("0x0f8a7ea5")
  })

  it("init_state hashes match the state-init BOCs", () => {
    const withInit = messages.filter((m) => m.init_state_hash && m.init_state?.body)
    expect(withInit.length).toBeGreaterThan(100)
    for (const m of withInit) expect(ok(parseBoc(m.init_state.body)).hash().toString("base64")).toBe(m.init_state_hash)
  })
})
