// The keys a v3 page's lookups take (src/store/Store.ts v3PageText), cut from page lines as the store cuts them:
// each line `state_before \t state_after \t book \t v3`, the book's addresses space-joined. For the benchmarks that
// time the lookups statement apart from the store.

export interface PageKeys {
  readonly hashes: Set<string>
  readonly book: Set<string>
}

/** The state hashes and book addresses of newline-separated page lines (blank lines skipped). */
export const pageKeys = (lines: string): PageKeys => {
  const hashes = new Set<string>()
  const book = new Set<string>()
  for (const line of lines.split("\n")) {
    const f = line.split("\t", 3)
    if (f.length < 3) continue
    // a state embedded as its JSON (src/flatten/v3_pages.ts) is not looked up
    if (!f[0]!.startsWith("{")) hashes.add(f[0]!)
    if (!f[1]!.startsWith("{")) hashes.add(f[1]!)
    for (const a of f[2]!.split(" ")) if (a.length > 0) book.add(a)
  }
  return { hashes, book }
}
