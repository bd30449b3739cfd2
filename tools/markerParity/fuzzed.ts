/**
 * Random bodies shaped like the layouts whose choice is delicate (opcode 1's five layouts, a jetton notification
 * against a Megaton swap, the telemint, sale and Blum messages, a minter's mint, preprocessed wallet v2 externals
 * against highload v3 ones): each is a template of typed fields with random values, sometimes a wrong flag, a
 * missing field or trailing bits and refs, so the marker's first-that-reads choice is exercised on both sides.
 * Deterministic for a seed; `npm run diff:bodies -- --cli PATH --fuzz N [--seed S]` compares them with the marker.
 */
import { Address, beginCell, type Builder, type Cell, storeMessageRelaxed } from "@ton/core"

/** A deterministic generator of numbers in [0, 1) for a seed. */
const generator = (seed0: number) => {
  let seed = seed0 >>> 0
  return () => {
    seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff
    return seed / 0x7fffffff
  }
}

export const fuzzedBodies = (count: number, seed0: number): Array<{ source: string; cell: Cell }> => {
  const rnd = generator(seed0)
  const ri = (n: number) => Math.floor(rnd() * n)
  const pick = <T>(a: ReadonlyArray<T>): T => a[ri(a.length)]!
  const hash = () => Buffer.from(Array.from({ length: 32 }, () => ri(256)))

  type Field = (b: Builder) => void
  const build = (fields: ReadonlyArray<Field>): Cell => {
    const b = beginCell()
    for (const f of fields) f(b)
    return b.endCell()
  }
  const bits = (n: number): Field => (b) => {
    for (let i = 0; i < n; i++) b.storeBit(ri(2) === 1)
  }
  const op = (o: number): Field => (b) => b.storeUint(o, 32)
  const addr: Field = (b) => {
    const k = ri(10)
    if (k === 0) b.storeUint(0, 2)
    else if (k === 1) b.storeUint(1, 2).storeUint(8, 9).storeUint(ri(256), 8)
    else b.storeAddress(new Address(pick([0, -1, 5]), hash()))
  }
  const addrInt: Field = (b) => (ri(8) === 0 ? addr(b) : b.storeAddress(new Address(pick([0, -1]), hash())))
  const coins: Field = (b) => b.storeCoins(BigInt(ri(3) === 0 ? 0 : ri(1e9)) * BigInt(ri(1000) + 1))
  const randomCell = (depth = 0): Cell => {
    const b = beginCell()
    bits(ri(200))(b)
    const refs = depth < 2 ? ri(3) : 0
    for (let i = 0; i < refs; i++) b.storeRef(randomCell(depth + 1))
    return b.endCell()
  }
  const ref = (fields: ReadonlyArray<Field>): Field => (b) => b.storeRef(build(fields))
  const anyRef: Field = (b) => b.storeRef(ri(4) === 0 ? beginCell().endCell() : randomCell())
  const boolExtended: Field = (b) => b.storeUint(pick([0, 3, 3, 3, 1, 2, 0]), 2)
  const maybeTail: Field = (b) => {
    if (ri(2)) bits(ri(80))(b)
    if (ri(3) === 0) anyRef(b)
  }
  const message = (): Cell =>
    beginCell()
      .store(
        storeMessageRelaxed({
          info: {
            type: "internal",
            ihrDisabled: true,
            bounce: ri(2) === 1,
            bounced: false,
            dest: new Address(0, hash()),
            value: { coins: BigInt(ri(1e9)) },
            ihrFee: 0n,
            forwardFee: 0n,
            createdLt: 0n,
            createdAt: 0
          },
          body: randomCell()
        })
      )
      .endCell()
  const outList = (n: number): Cell => {
    let list = beginCell().endCell()
    for (let i = 0; i < n; i++) {
      list = beginCell().storeRef(list).storeUint(0x0ec3c86d, 32).storeUint(3, 8).storeRef(ri(5) ? message() : randomCell()).endCell()
    }
    return list
  }
  const evaaHead = [op(1), bits(64), boolExtended, bits(64), addrInt]
  const templates: ReadonlyArray<[string, () => ReadonlyArray<Field>]> = [
    ["opcode 1, a ref", () => [op(1), ref([bits(ri(100))]), maybeTail]],
    ["opcode 1, EVAA supply", () => [...evaaHead, ...(ri(2) ? [bits(64)] : []), ref([bits(ri(60))]), maybeTail]],
    ["opcode 1, EVAA supply with options", () => [...evaaHead, ref([bits(ri(30))]), bits(16), boolExtended, addrInt, boolExtended]],
    ["opcode 1, salted", () => [op(1), ...(ri(2) ? [op(0x387da03b)] : []), maybeTail]],
    ["minter mint", () => [op(0x15), bits(64), addr, coins, ...(ri(5) ? [anyRef] : []), maybeTail]],
    ["Megaton swap", () => [op(0x7362d09c), addrInt, addrInt, coins, ref([addrInt, coins]), ...(ri(3) ? [] : [maybeTail])]],
    ["jetton notification", () => [op(0x7362d09c), bits(64), coins, addr, bits(1), maybeTail]],
    ["encrypted comment", () => [op(0x2167da4b), maybeTail]],
    ["telemint ok", () => [op(0xa37a0983), bits(ri(80))]],
    ["telemint cancel auction", () => [op(0x371638ae), bits(ri(80))]],
    [
      "telemint start auction",
      () => [op(0x487a8e81), bits(64), ...(ri(6) ? [ref([addrInt, coins, coins, bits(8), bits(32), bits(32), maybeTail])] : [maybeTail])]
    ],
    ["sale update", () => [op(0x6c6c2080), bits(64), coins, coins, ...(ri(4) ? [coins] : []), maybeTail]],
    ["Blum buy", () => [op(0xaf750d34), bits(64), coins, addr, maybeTail]],
    ["Blum buy log", () => [op(0xceac8af4), addr, coins, coins, coins, coins, maybeTail]],
    [
      "preprocessed wallet v2",
      () => [bits(512), ref([bits(64), bits(16), (b) => b.storeRef(outList(ri(3)))]), ...(ri(5) ? [] : [maybeTail])]
    ],
    ["signature and a ref", () => [bits(512), ref([bits(ri(2) ? 64 : 80), (b) => b.storeRef(randomCell())])]]
  ]
  const out: Array<{ source: string; cell: Cell }> = []
  for (let i = 0; i < count; i++) {
    const [name, fields] = pick(templates)
    try {
      out.push({ source: `fuzzed (seed ${seed0}) #${i}: ${name}`, cell: build(fields()) })
    } catch {
      // A template that overflows a cell (1023 bits, 4 refs) is skipped.
    }
  }
  return out
}

/**
 * Bodies of `sources` damaged at random: after the opcode, one bit in sixty flipped; sometimes cut short, a byte of
 * noise appended, a ref dropped; refs (three levels deep) damaged the same way. Reaches every layout of the sources
 * near the edges where it stops reading. `npm run diff:bodies -- --cli PATH --mutate N [--seed S]`.
 */
export const mutatedBodies = (
  sources: ReadonlyArray<Cell>,
  count: number,
  seed0: number
): Array<{ source: string; cell: Cell }> => {
  const rnd = generator(seed0)
  const ri = (n: number) => Math.floor(rnd() * n)
  const usable = sources.filter((c) => c.bits.length >= 32 && !c.isExotic)
  const mutate = (c: Cell, depth: number): Cell => {
    const s = c.beginParse(true)
    const bits = s.loadBits(s.remainingBits)
    const b = beginCell()
    const cut = ri(6) === 0 ? ri(bits.length + 1) : bits.length
    for (let i = 0; i < cut; i++) b.storeBit(i >= 32 && ri(60) === 0 ? !bits.at(i) : bits.at(i))
    if (ri(8) === 0 && b.availableBits > 0) b.storeUint(ri(256) & ((1 << Math.min(8, b.availableBits)) - 1), Math.min(8, b.availableBits))
    for (const r of c.refs) {
      if (ri(12) === 0) continue
      b.storeRef(r.isExotic || depth >= 3 || ri(3) !== 0 ? r : mutate(r, depth + 1))
    }
    return b.endCell()
  }
  const out: Array<{ source: string; cell: Cell }> = []
  if (usable.length === 0) return out
  for (let i = 0; i < count; i++) {
    out.push({ source: `mutated (seed ${seed0}) #${i}`, cell: mutate(usable[ri(usable.length)]!, 0) })
  }
  return out
}
