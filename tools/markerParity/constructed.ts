/**
 * Bodies built to exercise the printing rules the real fixtures rarely reach: payloads behind `Maybe ^Cell` that do
 * and do not decode, a nat read through a type argument (`Maybe (## 5)` in a StateInit), bit strings whose length is
 * not a multiple of four, deep nesting, bad UTF-8, dictionaries and the signed wallet layouts.
 */
import { Address, beginCell, type Cell, Dictionary, storeMessageRelaxed, toNano } from "@ton/core"

const owner = Address.parse("0:" + "11".repeat(32))
const other = Address.parse("-1:" + "ab".repeat(32))
const comment = (text: string): Cell => beginCell().storeUint(0, 32).storeStringTail(text).endCell()

const relaxed = (body: Cell, withInit = false): Cell =>
  beginCell()
    .store(
      storeMessageRelaxed({
        info: {
          type: "internal",
          ihrDisabled: true,
          bounce: false,
          bounced: false,
          dest: owner,
          value: { coins: toNano("1.5") },
          ihrFee: 0n,
          forwardFee: 0n,
          createdLt: 0n,
          createdAt: 0
        },
        init: withInit
          ? { splitDepth: 5, code: beginCell().storeUint(1, 8).endCell(), data: beginCell().storeUint(2, 8).endCell() }
          : undefined,
        body
      })
    )
    .endCell()

const signature = Buffer.alloc(64, 7)

export const constructedBodies = (): Array<{ source: string; cell: Cell }> => {
  const out: Array<{ source: string; cell: Cell }> = []
  const add = (source: string, cell: Cell) => out.push({ source: `constructed: ${source}`, cell })

  const transfer = (custom: Cell | null, fwd: (b: ReturnType<typeof beginCell>) => void) => {
    const b = beginCell()
      .storeUint(0x0f8a7ea5, 32)
      .storeUint(7, 64)
      .storeCoins(1000)
      .storeAddress(owner)
      .storeAddress(other)
      .storeMaybeRef(custom)
      .storeCoins(1)
    fwd(b)
    return b.endCell()
  }
  add("jetton_transfer, Maybe ^Cell payload that decodes", transfer(beginCell().storeUint(0xd53276db, 32).storeUint(9, 64).endCell(), (b) => b.storeBit(1).storeRef(comment("hi <&>"))))
  add("jetton_transfer, Maybe ^Cell payload that does not decode", transfer(beginCell().storeUint(0xdeadbeef, 32).storeUint(1, 8).endCell(), (b) => b.storeBit(0)))
  add("jetton_transfer, inline forward payload of odd length", transfer(null, (b) => b.storeBit(0).storeUint(5, 3)))
  add("jetton_transfer, empty forward payload in a ref", transfer(null, (b) => b.storeBit(1).storeRef(beginCell().endCell())))
  add(
    "jetton_transfer, external destination of 5 bits",
    beginCell()
      .storeUint(0x0f8a7ea5, 32)
      .storeUint(1, 64)
      .storeCoins(3)
      .storeUint(1, 2)
      .storeUint(5, 9)
      .storeUint(0b10110, 5)
      .storeAddress(null)
      .storeBit(0)
      .storeCoins(0)
      .storeBit(0)
      .endCell()
  )
  add("text comment with bad UTF-8", beginCell().storeUint(0, 32).storeBuffer(Buffer.from([0xff, 0xfe, 0x41])).endCell())
  add("text comment over two cells", beginCell().storeUint(0, 32).storeStringTail("x".repeat(200) + "é").endCell())
  add("short body", beginCell().storeUint(5, 8).endCell())
  add("unknown opcode", beginCell().storeUint(0x12345678, 32).storeUint(1, 64).endCell())

  let inner = comment("bottom")
  for (let i = 0; i < 13; i++) {
    inner = beginCell().storeUint(0x05138d91, 32).storeUint(i, 64).storeAddress(owner).storeBit(1).storeRef(inner).endCell()
  }
  add("nft_ownership_assigned nested 13 deep", inner)

  const w3 = (msgs: Array<Cell>) => {
    const b = beginCell().storeBuffer(signature).storeUint(698983191, 32).storeUint(1700000000, 32).storeUint(4, 32)
    for (const m of msgs) b.storeUint(3, 8).storeRef(m)
    return b.endCell()
  }
  add("wallet v3 external, a message with a StateInit of split depth 5", w3([relaxed(comment("init"), true)]))
  add("wallet v3 external, two messages", w3([relaxed(comment("a")), relaxed(beginCell().storeUint(0xd53276db, 32).storeUint(1, 64).endCell())]))

  const dict = Dictionary.empty(Dictionary.Keys.Int(16), {
    serialize: (v: Cell, b) => b.storeUint(3, 8).storeRef(v),
    parse: (s) => s.loadRef()
  })
  for (let i = 0; i < 3; i++) dict.set(i, relaxed(comment(`m${i}`)))
  add(
    "highload v2 external with three messages",
    beginCell().storeBuffer(signature).storeUint(698983191, 32).storeUint(123, 64).storeDict(dict).endCell()
  )
  add(
    "encrypted comment",
    beginCell().storeUint(0x2167da4b, 32).storeBuffer(Buffer.alloc(40, 1)).storeRef(beginCell().storeBuffer(Buffer.alloc(16, 2)).endCell()).endCell()
  )
  add(
    "nft_transfer with a custom payload and an inline comment",
    beginCell()
      .storeUint(0x5fcc3d14, 32)
      .storeUint(3, 64)
      .storeAddress(owner)
      .storeAddress(other)
      .storeMaybeRef(beginCell().storeUint(1, 1).endCell())
      .storeCoins(5)
      .storeBit(0)
      .storeUint(0, 32)
      .storeStringTail("fwd")
      .endCell()
  )
  const swapBody = beginCell()
    .storeCoins(990)
    .storeAddress(owner)
    .storeCoins(toNano("0.1"))
    .storeMaybeRef(null)
    .storeCoins(0)
    .storeMaybeRef(beginCell().storeUint(0xd53276db, 32).storeUint(2, 64).endCell())
    .storeUint(10, 16)
    .storeAddress(null)
    .endCell()
  const stonV2Head = (b: ReturnType<typeof beginCell>) =>
    b.storeAddress(other).storeAddress(owner).storeAddress(owner).storeUint(1700000000, 64).storeRef(swapBody)
  add(
    "STON.fi v2 swap",
    beginCell()
      .storeUint(0x6664de2a, 32)
      .storeUint(11, 64)
      .storeAddress(owner)
      .storeCoins(1000)
      .storeCoins(0)
      .storeRef(stonV2Head(beginCell().storeUint(0x0f8a7ea5, 32)).endCell())
      .endCell()
  )
  add(
    "jetton_transfer with a STON.fi v2 swap forward payload",
    transfer(null, (b) => b.storeBit(1).storeRef(stonV2Head(beginCell().storeUint(0x6664de2a, 32)).endCell()))
  )
  add(
    "STON.fi v2 pay_to",
    beginCell()
      .storeUint(0x657b54f5, 32)
      .storeUint(12, 64)
      .storeAddress(owner)
      .storeAddress(other)
      .storeAddress(owner)
      .storeUint(0xc64370e5, 32)
      .storeMaybeRef(null)
      .storeRef(beginCell().storeCoins(1).storeCoins(500).storeAddress(other).storeCoins(0).storeAddress(null).endCell())
      .endCell()
  )
  add("STON.fi swap ok payload", beginCell().storeUint(0xc64370e5, 32).endCell())
  add(
    "STON.fi vault pay_to",
    beginCell().storeUint(0x2100c922, 32).storeUint(13, 64).storeCoins(77).storeAddress(other).storeAddress(owner).endCell()
  )

  // Opcode 1 is shared: the salted guard constructor, Pyth's guardian-set update (first ref of 48 bits or more), then
  // EVAA's supply versions (with a forward amount; without one, the rest of the body as one cell).
  const evaaHead = (b: ReturnType<typeof beginCell>) =>
    b.storeUint(1, 32).storeUint(21, 64).storeUint(0b11, 2).storeUint(5_000_000, 64).storeAddress(owner)
  add("opcode 1 with the guard's salt", beginCell().storeUint(1, 32).storeUint(0x387da03b, 32).storeUint(7, 8).endCell())
  add(
    "opcode 1, Pyth guardian-set update",
    beginCell().storeUint(1, 32).storeRef(beginCell().storeUint(4, 8).storeUint(9, 32).storeUint(1, 8).storeUint(0xabcd, 16).endCell()).endCell()
  )
  add(
    "opcode 1, EVAA supply with a forward amount",
    evaaHead(beginCell()).storeUint(100, 64).storeRef(beginCell().storeUint(0xaa, 8).endCell()).endCell()
  )
  add("opcode 1, EVAA supply without options", evaaHead(beginCell()).storeRef(beginCell().endCell()).endCell())
  // The v8 layout (options after the payload ref) is never printed: its bits always read as a forward amount first.
  add(
    "opcode 1, EVAA supply with options",
    evaaHead(beginCell()).storeRef(beginCell().endCell()).storeUint(3, 16).storeUint(0, 2).storeAddress(other).storeUint(0, 2).endCell()
  )
  add(
    "opcode 1, EVAA supply with a bad flag",
    beginCell().storeUint(1, 32).storeUint(21, 64).storeUint(0b01, 2).storeUint(5, 64).storeAddress(owner).storeRef(beginCell().endCell()).endCell()
  )
  add(
    "minter jetton mint",
    beginCell()
      .storeUint(0x15, 32)
      .storeUint(1, 64)
      .storeAddress(owner)
      .storeCoins(toNano("0.05"))
      .storeRef(beginCell().storeUint(0x178d4519, 32).storeUint(1, 64).storeCoins(10).storeAddress(null).storeAddress(null).storeCoins(0).storeBit(0).endCell())
      .endCell()
  )
  // A hash whose bits, read as a jetton notification, ask for a 511-bit address past the end of the body.
  const notNotify = Buffer.alloc(32, 0xff)
  notNotify[179 >> 3] = notNotify[179 >> 3]! & ~(0x80 >> (179 & 7))
  add(
    "megaton swap (not a jetton notification)",
    beginCell()
      .storeUint(0x7362d09c, 32)
      .storeAddress(new Address(0, notNotify))
      .storeAddress(other)
      .storeCoins(toNano("1"))
      .storeRef(beginCell().storeAddress(owner).storeCoins(42).endCell())
      .endCell()
  )
  add(
    "jetton_transfer with an encrypted comment as forward payload",
    transfer(null, (b) => b.storeBit(1).storeRef(beginCell().storeUint(0x2167da4b, 32).storeBuffer(Buffer.alloc(24, 3)).endCell()))
  )
  const outList = (n: number): Cell => {
    let list = beginCell().endCell()
    for (let i = 0; i < n; i++) {
      list = beginCell().storeRef(list).storeUint(0x0ec3c86d, 32).storeUint(3, 8).storeRef(relaxed(comment(`p${i}`))).endCell()
    }
    return list
  }
  const preprocessed = (n: number) =>
    beginCell()
      .storeBuffer(signature)
      .storeRef(beginCell().storeUint(1700000000, 64).storeUint(17, 16).storeRef(outList(n)).endCell())
      .endCell()
  add("preprocessed wallet v2 external, one action", preprocessed(1))
  add("preprocessed wallet v2 external, two actions", preprocessed(2))
  add("preprocessed wallet v2 external, no action", preprocessed(0))
  // A sender with an anycast prefix: depth is `#<= 30` with `{ depth >= 1 }`, so 31 and 0 do not parse.
  const anycastNotify = (depth: number) =>
    beginCell()
      .storeUint(0x7362d09c, 32)
      .storeUint(4, 64)
      .storeCoins(9)
      .storeUint(0b10, 2)
      .storeBit(1)
      .storeUint(depth, 5)
      .storeUint(depth === 3 ? 0b101 : 0, depth)
      .storeUint(0, 8)
      .storeBuffer(Buffer.alloc(32, 0x22))
      .storeBit(0)
      .endCell()
  add("jetton_notify, sender with an anycast of depth 3", anycastNotify(3))
  add("jetton_notify, sender with an anycast of depth 31", anycastNotify(31))
  add("jetton_notify, sender with an anycast of depth 0", anycastNotify(0))
  const library = beginCell().storeUint(2, 8).storeBuffer(Buffer.alloc(32, 9)).endCell({ exotic: true })
  // A v5 request its counted parser cannot read: the marker's line is not JSON, so the whole body is null, also
  // when the request is only a jetton transfer's forward payload.
  const brokenW5 = beginCell().storeUint(0x7369676e, 32).storeUint(1, 32).storeUint(2, 32).storeUint(3, 32).storeBit(1).storeBit(0).storeRef(beginCell().storeUint(5, 8).endCell()).endCell()
  add("v5 external request whose actions do not read", brokenW5)
  add("jetton_transfer whose forward payload is a v5 request that does not read", transfer(null, (b) => b.storeBit(1).storeRef(brokenW5)))
  // A v5 request whose extended actions reach a library cell: the marker fails opening it, its line is "unknown",
  // and nested, the payload stays a BOC.
  const w5ToLibrary = beginCell().storeUint(0x7369676e, 32).storeUint(1, 32).storeUint(2, 32).storeUint(3, 32).storeBit(0).storeBit(1).storeUint(2, 8).storeRef(library).endCell()
  add("v5 external request whose extended actions reach a library cell", w5ToLibrary)
  add("jetton_transfer whose forward payload is that v5 request", transfer(null, (b) => b.storeBit(1).storeRef(w5ToLibrary)))
  add("signed body whose ref is a library cell", beginCell().storeBuffer(signature).storeRef(library).endCell())
  add("unknown opcode whose first ref is a library cell", beginCell().storeUint(0x12345678, 32).storeRef(library).endCell())
  return out
}
