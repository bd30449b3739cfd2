import type { V3PageText } from "../../src/store/TxStore.js"

/**
 * A v3 page with each transaction's piece as text of its exact bytes (latin1: one character per byte, so two pages
 * compare equal only when their bytes do), for `toEqual`: compared as Buffers element by element, a page of a few
 * hundred KiB takes the matcher seconds.
 */
export const pageAsText = (page: V3PageText | null) =>
  page === null ? null : { ...page, txs: page.txs.map((t) => ({ ...t, v3: t.v3.toString("latin1") })) }
