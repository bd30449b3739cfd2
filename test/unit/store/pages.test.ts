/**
 * The pre-rendered pieces of `tx_pages` against the renderers on decoded real mainnet transactions: the v3 piece
 * plus the read-time tail is the v3 rendering byte for byte, whatever account states are known; the v2 piece is the
 * v2 rendering; the book lists the addresses the address book shows for the transaction.
 */
import { describe, expect, it } from "vitest"
import { goJson, pythonJson } from "../../../src/api/json.js"
import { bookAddresses, txPageRow, v3PageAnswer, v3Tail } from "../../../src/store/pages.js"
import { namedCodeHashes } from "../../../src/ton/bodies/interfaces.js"
import type { AccountStateRecord } from "../../../src/ton/record.js"
import { renderV2Transaction } from "../../../src/ton/v2.js"
import {
  renderAddressBook,
  renderAddressBookOf,
  renderAddressBookText,
  renderV3AccountState,
  renderV3Transaction,
  WALLET_CODE_HASHES
} from "../../../src/ton/v3.js"
import { referenceAddressBookText } from "../../support/addressBookReference.js"
import { realBlockBundles } from "./realBlocks.js"

const txs = realBlockBundles().bundles.flatMap((b) => b.transactions)

// Some states known (with and without extra currencies), the rest hash-only: both shapes of the tail.
const states = new Map<string, AccountStateRecord>()
txs.forEach((tx, i) => {
  if (i % 3 === 0) {
    states.set(tx.account_state_hash_after, {
      hash: tx.account_state_hash_after,
      account: tx.account,
      balance: String(1000 + i),
      extra_currencies: i % 2 === 0 ? {} : { "7": "123456789012345678901234567890" },
      account_status: "active",
      frozen_hash: null,
      data_hash: tx.hash,
      code_hash: tx.hash
    })
  }
})

describe("tx_pages pieces", () => {
  it("cover hundreds of real transactions, traced ones among them", () => {
    expect(txs.length).toBeGreaterThan(1000)
  })

  it("v3 piece + tail = the v3 rendering, v2 piece = the v2 rendering", () => {
    for (const tx of txs) {
      const row = txPageRow(tx)
      expect(row.v3 + v3Tail(row.state_before, row.state_after, states)).toBe(goJson(renderV3Transaction(tx, states)))
      expect(row.v2).toBe(pythonJson(renderV2Transaction(tx)))
      expect(row.lt).toBe(tx.lt)
      expect(row.block_shard).toBe(tx.block.shard)
    }
  })

  it("an absent state's tail is the serialized state, whatever its hash holds", () => {
    for (const hash of ["x", "", "<a&b>\u2028\"\\\u0001é", txs[0]!.account_state_hash_before]) {
      const want = `,"account_state_before":${goJson(renderV3AccountState(hash, states))},"account_state_after":`
      expect(v3Tail(hash, txs[0]!.account_state_hash_after, states).startsWith(want)).toBe(true)
    }
  })

  it("the answer as bytes is the UTF-8 of the answer as text", () => {
    const rows = txs.slice(0, 120).map(txPageRow)
    // a piece with characters beyond ASCII and ones Go escapes (the bytes go in as they are)
    const odd = { v3: Buffer.from('{"x":"é€😀\\u003c"', "utf8"), before: "é<", after: rows[0]!.state_after }
    for (const n of [0, 1, 40, 120]) {
      const page = {
        txs: [...rows.slice(0, n).map((r) => ({ v3: Buffer.from(r.v3, "utf8"), before: r.state_before, after: r.state_after })), ...(n === 1 ? [odd] : [])],
        states,
        book: [],
        codeHashes: new Map<string, string | null>()
      }
      for (const book of ["{}", '{"0:AB":{"user_friendly":"é","domain":null}}']) {
        const text = `{"transactions":[${page.txs.map((t) => t.v3.toString("utf8") + v3Tail(t.before, t.after, states)).join(",")}],"address_book":${book}}`
        expect(v3PageAnswer(page, book).equals(Buffer.from(text, "utf8"))).toBe(true)
      }
    }
  })

  it("the book gives the same address book as the records", () => {
    const page = txs.slice(0, 40)
    const codeHashes = new Map(page.map((tx, i) => [tx.account, i % 2 === 0 ? tx.hash : null] as const))
    const addrs = new Set(page.flatMap(bookAddresses))
    expect(goJson(renderAddressBookOf(addrs, codeHashes, { testnet: false }))).toBe(
      goJson(renderAddressBook(page, codeHashes, { testnet: false }))
    )
  })

  it("the book's text is the serialized address book, byte for byte", () => {
    const page = txs.slice(0, 200)
    const addrs = [...new Set([...page.flatMap(bookAddresses), "-1:" + "3".repeat(64)])]
    expect(addrs.length).toBeGreaterThan(100)
    // every kind of code entry: each wallet's (non-bounceable), each with a known interface, an unknown one, none
    // (null) and absent; masterchain and basechain addresses among them
    const kinds = [...new Set([...WALLET_CODE_HASHES, ...namedCodeHashes()]), page[0]!.hash, null, undefined]
    expect(addrs.length).toBeGreaterThan(2 * kinds.length)
    const codeHashes = new Map<string, string | null>()
    addrs.forEach((a, i) => {
      const code = kinds[i % kinds.length]
      if (code !== undefined) codeHashes.set(a, code)
    })
    expect(addrs.some((a) => a.startsWith("-1:"))).toBe(true)
    for (const testnet of [false, true]) {
      for (const shape of ["current", "2025-09"] as const) {
        const expected = goJson(renderAddressBookOf(addrs, codeHashes, { testnet, shape }))
        // reversed input and a repeated address: the same text (the object keeps one key per address, sorted)
        const input = [...addrs].reverse().concat(addrs.slice(0, 3))
        expect(renderAddressBookText(input, codeHashes, { testnet, shape })).toBe(expected)
        // and as it was written with @ton/core's forms, a JSON.stringify per string and an escaping pass
        expect(renderAddressBookText(input, codeHashes, { testnet, shape })).toBe(
          referenceAddressBookText(input, codeHashes, { testnet, shape })
        )
      }
    }
    expect(renderAddressBookText([], codeHashes, { testnet: false })).toBe(goJson(renderAddressBookOf([], codeHashes, { testnet: false })))
  })

  it("the book's text refuses an address that is not a raw form, as the object form does", () => {
    for (const bad of ["0:1234", `0:${"Z".repeat(64)}`, `0:${"A".repeat(63)}"`, `0:${"A".repeat(62)}<>`]) {
      const book = ["-1:" + "3".repeat(64), bad]
      expect(() => renderAddressBookText(book, new Map(), { testnet: false }), bad).toThrow(RangeError)
      expect(() => renderAddressBookOf(book, new Map(), { testnet: false }), bad).toThrow(RangeError)
    }
  })
})
