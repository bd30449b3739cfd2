// The address book's text as the API wrote it before it owned the friendly-form encoder: @ton/core's Address behind
// a memo of ~20,000 entries emptied when full, one JSON.stringify per string, Go's escapes over the whole text. Kept
// as the reference the faster renderer (renderAddressBookText, src/ton/v3.ts) is compared with in the tests and in
// bench/addressBook.ts.
import { Address } from "@ton/core"
import { goEscaped, goKeyOrder } from "../../src/api/json.js"
import { interfacesOf } from "../../src/ton/bodies/interfaces.js"
import { isBounceableByCode, type V3Shape } from "../../src/ton/v3.js"

const MEMO_ENTRIES = Math.floor((4 * 1024 * 1024) / 200)
const memos: ReadonlyArray<Map<string, string>> = Array.from({ length: 8 }, () => new Map<string, string>())
let memoEntries = 0

/** @ton/core's user-friendly form, memoized as the API's toFriendly memoized it. */
export const referenceFriendly = (raw: string, bounceable: boolean, testnet: boolean, urlSafe = true): string => {
  const memo = memos[(bounceable ? 4 : 0) | (testnet ? 2 : 0) | (urlSafe ? 1 : 0)]!
  const hit = memo.get(raw)
  if (hit !== undefined) return hit
  const value = Address.parseRaw(raw).toString({ bounceable, testOnly: testnet, urlSafe })
  if (memoEntries >= MEMO_ENTRIES) {
    for (const m of memos) m.clear()
    memoEntries = 0
  }
  memo.set(raw, value)
  memoEntries++
  return value
}

export const referenceAddressBookText = (
  addrs: Iterable<string>,
  codeHashes: ReadonlyMap<string, string | null>,
  opts: { readonly testnet: boolean; readonly shape?: V3Shape }
): string => {
  const current = (opts.shape ?? "current") === "current"
  const sorted = [...addrs].sort(goKeyOrder)
  let out = "{"
  let prev: string | undefined
  for (const raw of sorted) {
    if (raw === prev) continue
    const code = codeHashes.get(raw)
    const friendly = referenceFriendly(raw, isBounceableByCode(code), opts.testnet)
    out +=
      (prev === undefined ? "" : ",") +
      `${JSON.stringify(raw)}:{"user_friendly":${JSON.stringify(friendly)},"domain":null` +
      (current ? `,"interfaces":${JSON.stringify(interfacesOf(code))}}` : "}")
    prev = raw
  }
  return goEscaped(out + "}")
}
