// The address book's CPU on the API's main thread, per call, in alternating rounds in one process: friendly forms
// made by @ton/core's Address (what the API did before, without and behind its memo) against the owned encoder
// (src/ton/friendlyForm.ts), and an uncached v3 page's address book text (--entries, default 500, drawn at random
// from --accounts raw addresses, as pages of a store of that many accounts draw them) by the earlier renderer
// (test/support/addressBookReference.ts: @ton/core behind its memo, a JSON.stringify per string, an escaping pass)
// against renderAddressBookText. Addresses are split from one line per call, as the store hands them over (strings
// whose hashes are not computed yet). Prints CPU per call per round and the medians; outputs are compared first.
// Usage: npx tsx bench/addressBook.ts [--rounds 7] [--entries 500] [--accounts 40000] [--calls 400]
// Numbers are printed, never asserted.
import { Address } from "@ton/core"
import { loadavg } from "node:os"
import { parseCli } from "../src/infra/cli.js"
import { namedCodeHashes } from "../src/ton/bodies/interfaces.js"
import { friendlyForm } from "../src/ton/friendlyForm.js"
import { renderAddressBookText, WALLET_CODE_HASHES } from "../src/ton/v3.js"
import { referenceAddressBookText, referenceFriendly } from "../test/support/addressBookReference.js"

const USAGE = `Usage: npx tsx bench/addressBook.ts [--rounds 7] [--entries 500] [--accounts 40000] [--calls 400]
  Friendly forms and a v3 page's address book text, before (@ton/core) and after (the owned encoder), per call.`
const args = parseCli(
  {
    rounds: { type: "string", default: "7" },
    entries: { type: "string", default: "500" },
    accounts: { type: "string", default: "40000" },
    calls: { type: "string", default: "400" }
  },
  USAGE
)
const rounds = Number(args.rounds)
const entries = Number(args.entries)
const accounts = Number(args.accounts)
const calls = Number(args.calls)

let seed = 20261127
const next = (): number => {
  seed ^= seed << 13
  seed ^= seed >>> 17
  seed ^= seed << 5
  return seed >>> 0
}
// a masterchain account in 50, the rest basechain; code hashes as a generated store has them: wallets, named
// contracts, unknown codes, no code (null), nothing known (absent)
const pool: Array<string> = Array.from({ length: accounts }, () => {
  const hash = Buffer.alloc(32)
  for (let j = 0; j < 32; j++) hash[j] = next() & 255
  return `${next() % 50 === 0 ? -1 : 0}:${hash.toString("hex").toUpperCase()}`
})
const kinds: Array<string | null | undefined> = [
  ...WALLET_CODE_HASHES,
  ...namedCodeHashes(),
  "unknown code",
  null,
  undefined
]
const codeOf = new Map(pool.map((a) => [a, kinds[next() % kinds.length]] as const))
// per call: one line of addresses (split at call time) and the code hashes the store reads for them
const pages = Array.from({ length: calls }, () => {
  const addrs = Array.from({ length: entries }, () => pool[next() % accounts]!)
  const codes = new Map<string, string | null>()
  for (const a of addrs) {
    const c = codeOf.get(a)
    if (c !== undefined) codes.set(a, c)
  }
  return { line: addrs.join(" "), codes }
})

const cpuUs = (): number => {
  const u = process.cpuUsage()
  return u.user + u.system
}
const median = (xs: ReadonlyArray<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

// friendly forms of every address of every page, one call each
const forms: Record<string, (raw: string) => string> = {
  "@ton/core Address": (raw) => Address.parseRaw(raw).toString({ bounceable: true, testOnly: false, urlSafe: true }),
  "@ton/core behind its memo": (raw) => referenceFriendly(raw, true, false),
  friendlyForm: (raw) => friendlyForm(raw, true, false, true)
}
const books: Record<string, (addrs: Array<string>, codes: ReadonlyMap<string, string | null>) => string> = {
  "earlier renderer": (addrs, codes) => referenceAddressBookText(addrs, codes, { testnet: false }),
  renderAddressBookText: (addrs, codes) => renderAddressBookText(addrs, codes, { testnet: false })
}

const sameBooks = pages.every((p) => {
  const addrs = p.line.split(" ")
  return books["earlier renderer"]!(addrs, p.codes) === books["renderAddressBookText"]!(addrs, p.codes)
})
const sameForms = pool.slice(0, 2000).every((a) => new Set(Object.values(forms).map((f) => f(a))).size === 1)
console.log(
  `bench/addressBook: ${calls} books of ${entries} addresses from ${accounts} accounts, ${rounds} rounds; ` +
    `books identical: ${sameBooks}, forms identical: ${sameForms}; load ${loadavg()[0]!.toFixed(1)}`
)

const perForm: Record<string, Array<number>> = Object.fromEntries(Object.keys(forms).map((k) => [k, []]))
const perBook: Record<string, Array<number>> = Object.fromEntries(Object.keys(books).map((k) => [k, []]))
for (let round = 0; round < rounds; round++) {
  const formNames = Object.keys(forms)
  const bookNames = Object.keys(books)
  if (round % 2 === 1) {
    formNames.reverse()
    bookNames.reverse()
  }
  for (const name of formNames) {
    const lines = pages.map((p) => p.line.split(" "))
    const f = forms[name]!
    let n = 0
    const t0 = cpuUs()
    for (const addrs of lines) for (const a of addrs) n += f(a).length
    perForm[name]!.push(((cpuUs() - t0) * 1000) / (n / 48))
  }
  for (const name of bookNames) {
    const lines = pages.map((p) => p.line.split(" "))
    const f = books[name]!
    const t0 = cpuUs()
    for (let i = 0; i < pages.length; i++) f(lines[i]!, pages[i]!.codes)
    perBook[name]!.push((cpuUs() - t0) / pages.length)
  }
  console.log(
    `round ${round + 1}: ` +
      Object.entries(perForm)
        .map(([k, v]) => `${k} ${v.at(-1)!.toFixed(0)} ns`)
        .join(", ") +
      "; " +
      Object.entries(perBook)
        .map(([k, v]) => `${k} ${v.at(-1)!.toFixed(1)} us`)
        .join(", ")
  )
}
console.log(
  "median CPU per friendly form: " +
    Object.entries(perForm)
      .map(([k, v]) => `${k} ${median(v).toFixed(0)} ns`)
      .join(", ")
)
console.log(
  `median CPU per ${entries}-address book: ` +
    Object.entries(perBook)
      .map(([k, v]) => `${k} ${median(v).toFixed(1)} us`)
      .join(", ") +
    ` (load ${loadavg()[0]!.toFixed(1)})`
)
