import type { V3PageRow } from "../../src/flatten/v3_pages.js"
import { isEmbeddedState, v3Tail } from "../../src/store/pages.js"
import type { V3PageText } from "../../src/store/TxStore.js"

/** A page line's state field as its hash: the field itself, or the hash inside the state's embedded JSON. */
export const stateHash = (field: string): string =>
  isEmbeddedState(field) ? (JSON.parse(field) as { hash: string }).hash : field

/** A `v3_pages` row with its embedded states (src/flatten/v3_pages.ts) put back as their hashes: a row written before. */
export const withStateHashes = <R extends Pick<V3PageRow, "lines">>(row: R): R => ({
  ...row,
  lines: row.lines.map((line) => {
    const f = line.split("\t")
    f[0] = stateHash(f[0]!)
    f[1] = stateHash(f[1]!)
    return f.join("\t")
  })
})

/**
 * A v3 page as it answers, for `toEqual`: each transaction's piece as text of its exact bytes (latin1: one character
 * per byte, so two pages compare equal only when their bytes do; compared as Buffers element by element, a page of a
 * few hundred KiB takes the matcher seconds) with its state hashes, the states as they render after it (`tails`,
 * whether looked up or embedded in the row), the address book and its code hashes.
 */
export const pageAsText = (page: V3PageText | null) =>
  page === null
    ? null
    : {
        txs: page.txs.map((t) => ({
          v3: t.v3.toString("latin1"),
          before: stateHash(t.before),
          after: stateHash(t.after)
        })),
        tails: page.txs.map((t) => v3Tail(t.before, t.after, page.states)),
        book: page.book,
        codeHashes: page.codeHashes
      }
