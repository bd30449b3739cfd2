/**
 * SHA-256 (FIPS 180-4) of many short messages per call, as a WebAssembly function this module assembles at load time
 * (a few hundred lines of bytecode: the 64 rounds unrolled with the working variables renamed, the message schedule
 * in sixteen rolling locals). It takes any number of messages per call; CellStore calls it once per cell, since
 * batches of 4 to 256 cells measured no cheaper (the JS<->wasm crossing is not what costs).
 * Invariant: every digest equals sha256Into's (the JS reference, src/ton/fast/sha256.ts) of the same bytes; where
 * WebAssembly is unavailable `makeSha256Batch` answers undefined and the caller hashes in JS.
 */

import { K } from "./sha256.js"

// Round constants: the JS reference's own (FIPS 180-4, 4.2.2). Initial hash value: FIPS 180-4, 5.3.3.
const IV = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]

// The opcodes used (WebAssembly core specification, binary format).
const BLOCK = 0x02
const LOOP = 0x03
const BR = 0x0c
const BR_IF = 0x0d
const END = 0x0b
const VOID = 0x40
const GET = 0x20
const SET = 0x21
const TEE = 0x22
const LOAD = 0x28
const STORE = 0x36
const STORE8 = 0x3a
const CONST = 0x41
const EQZ = 0x45
const LT_U = 0x49
const ADD = 0x6a
const SUB = 0x6b
const AND = 0x71
const OR = 0x72
const XOR = 0x73
const SHL = 0x74
const SHR_U = 0x76
const ROTL = 0x77
const ROTR = 0x78

const uleb = (n: number): Array<number> => {
  const out: Array<number> = []
  do {
    let b = n & 0x7f
    n >>>= 7
    if (n !== 0) b |= 0x80
    out.push(b)
  } while (n !== 0)
  return out
}

const sleb = (n: number): Array<number> => {
  const out: Array<number> = []
  n |= 0
  for (;;) {
    const b = n & 0x7f
    n >>= 7
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b)
      return out
    }
    out.push(b | 0x80)
  }
}

const name = (s: string): Array<number> => [...uleb(s.length), ...Buffer.from(s, "ascii")]
const section = (id: number, body: Array<number>): Array<number> => [id, ...uleb(body.length), ...body]
const vec = (items: Array<Array<number>>): Array<number> => [...uleb(items.length), ...items.flat()]

// digest(tab, n, out): locals 0..2 are the parameters, then these.
const TAB = 0
const N = 1
const OUT = 2
const P = 3
const LEN = 4
const END_AT = 5
const Q = 6
const HV = 7 // h0..h7: 7..14
const WV = 15 // a..h: 15..22
const WS = 23 // w0..w15: 23..38
const T = 39
const LOCALS = 40 - 3

/** The body of digest: for each of n (offset, length) pairs at `tab`, pads the message in place and hashes it. */
const body = (): Array<number> => {
  const c: Array<number> = []
  const get = (l: number) => c.push(GET, ...uleb(l))
  const set = (l: number) => c.push(SET, ...uleb(l))
  const k = (v: number) => c.push(CONST, ...sleb(v))
  const op = (...o: Array<number>) => c.push(...o)
  const load = (offset: number) => c.push(LOAD, 2, ...uleb(offset))
  const store = (offset: number) => c.push(STORE, 2, ...uleb(offset))
  // x on the stack -> x with its bytes reversed (wasm memory is little-endian, SHA-256 words big-endian)
  const bswapLocal = (l: number) => {
    get(l)
    k(8)
    op(ROTL)
    k(0x00ff00ff)
    op(AND)
    get(l)
    k(8)
    op(ROTR)
    k(0xff00ff00 | 0)
    op(AND, OR)
  }
  const rot3 = (l: number, r1: number, r2: number, r3: number, shiftLast: boolean) => {
    get(l)
    k(r1)
    op(ROTR)
    get(l)
    k(r2)
    op(ROTR, XOR)
    get(l)
    k(r3)
    op(shiftLast ? SHR_U : ROTR, XOR)
  }

  op(BLOCK, VOID, LOOP, VOID)
  // while (n != 0)
  get(N)
  op(EQZ, BR_IF, 1)
  get(TAB)
  load(0)
  set(P)
  get(TAB)
  load(4)
  set(LEN)
  // end = p + ((len + 72) & ~63): the message, its 0x80 byte and its 64-bit length, in whole blocks
  get(P)
  get(LEN)
  k(72)
  op(ADD)
  k(~63)
  op(AND, ADD)
  set(END_AT)
  get(P)
  get(LEN)
  op(ADD)
  c.push(TEE, ...uleb(Q))
  k(0x80)
  op(STORE8, 0, 0)
  get(Q)
  k(1)
  op(ADD)
  set(Q)
  // zeros up to the last four bytes (the length's high word is zero: messages are far below 512 MiB)
  op(BLOCK, VOID, LOOP, VOID)
  get(Q)
  get(END_AT)
  k(4)
  op(SUB, LT_U, EQZ, BR_IF, 1)
  get(Q)
  k(0)
  op(STORE8, 0, 0)
  get(Q)
  k(1)
  op(ADD)
  set(Q)
  op(BR, 0, END, END)
  get(LEN)
  k(3)
  op(SHL)
  set(T)
  get(END_AT)
  k(4)
  op(SUB)
  bswapLocal(T)
  store(0)
  for (let i = 0; i < 8; i++) {
    k(IV[i]! | 0)
    set(HV + i)
  }
  // one 64-byte block per iteration
  op(LOOP, VOID)
  for (let i = 0; i < 16; i++) {
    get(P)
    load(i * 4)
    set(T)
    bswapLocal(T)
    set(WS + i)
  }
  for (let i = 0; i < 8; i++) {
    get(HV + i)
    set(WV + i)
  }
  // v[0..7] name the locals playing a..h; each round renames instead of moving
  let v = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => WV + i)
  for (let i = 0; i < 64; i++) {
    const w = WS + (i & 15)
    if (i >= 16) {
      // W[i] = s1(W[i-2]) + W[i-7] + s0(W[i-15]) + W[i-16], into the slot of W[i-16]
      rot3(WS + ((i - 2) & 15), 17, 19, 10, true)
      get(WS + ((i - 7) & 15))
      op(ADD)
      rot3(WS + ((i - 15) & 15), 7, 18, 3, true)
      op(ADD)
      get(w)
      op(ADD)
      set(w)
    }
    const [a, b, cc, d, e, f, g, h] = v as [number, number, number, number, number, number, number, number]
    // h = h + S1(e) + Ch(e, f, g) + K[i] + W[i]
    get(h)
    rot3(e, 6, 11, 25, false)
    op(ADD)
    get(g)
    get(e)
    get(f)
    get(g)
    op(XOR, AND, XOR, ADD)
    k(K[i]! | 0)
    op(ADD)
    get(w)
    op(ADD)
    set(h)
    // d = d + T1
    get(d)
    get(h)
    op(ADD)
    set(d)
    // h = T1 + S0(a) + Maj(a, b, c)
    get(h)
    rot3(a, 2, 13, 22, false)
    op(ADD)
    get(a)
    get(b)
    op(AND)
    get(cc)
    get(a)
    get(b)
    op(OR, AND, OR, ADD)
    set(h)
    v = [h, a, b, cc, d, e, f, g]
  }
  for (let i = 0; i < 8; i++) {
    get(HV + i)
    get(v[i]!)
    op(ADD)
    set(HV + i)
  }
  get(P)
  k(64)
  op(ADD)
  c.push(TEE, ...uleb(P))
  get(END_AT)
  op(LT_U, BR_IF, 0, END)
  for (let i = 0; i < 8; i++) {
    get(OUT)
    bswapLocal(HV + i)
    store(i * 4)
  }
  get(OUT)
  k(32)
  op(ADD)
  set(OUT)
  get(TAB)
  k(8)
  op(ADD)
  set(TAB)
  get(N)
  k(1)
  op(SUB)
  set(N)
  op(BR, 0, END, END, END)
  return [...vec([[...uleb(LOCALS), I32]]), ...c]
}

const I32 = 0x7f
const PAGE = 65536

/** The module's bytes: one memory (exported) and digest(tab, n, out). */
export const sha256WasmBytes = (): Uint8Array => {
  const code = body()
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, vec([[0x60, ...vec([[I32], [I32], [I32]]), ...vec([])]])),
    ...section(3, vec([uleb(0)])),
    ...section(5, vec([[0x00, ...uleb(1)]])),
    ...section(
      7,
      vec([
        [...name("memory"), 0x02, 0],
        [...name("digest"), 0x00, 0]
      ])
    ),
    ...section(10, vec([[...uleb(code.length), ...code]]))
  ])
}

/** Most digests per call, and the room for their messages (a cell's is at most 266 bytes, 320 padded). */
export const BATCH = 1024
const TAB_AT = 0
const OUT_AT = TAB_AT + BATCH * 8
const ARENA_AT = OUT_AT + BATCH * 32
const ARENA_END = ARENA_AT + BATCH * 320

// The little of the WebAssembly JS API used here (the project's type libraries do not declare it).
interface WasmMemory {
  readonly buffer: ArrayBuffer
  grow(pages: number): number
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object
  Instance: new (module: object, imports: object) => { readonly exports: Record<string, unknown> }
}
const wasmApi = (globalThis as { WebAssembly?: WasmApi }).WebAssembly

let compiled: object | null | undefined

const compile = (): object | null => {
  if (compiled === undefined) {
    try {
      compiled = wasmApi === undefined ? null : new wasmApi.Module(sha256WasmBytes())
    } catch {
      compiled = null
    }
  }
  return compiled
}

/**
 * A batch of messages hashed by one call: `message(len)` gives the offset in `mem` where the next message (at most
 * 320 - 9 bytes) is written; `run()` hashes the batch and leaves digest j at `mem[outAt + 32 j]`. A caller flushes
 * when `full()`.
 */
export class Sha256Batch {
  readonly mem: Uint8Array
  readonly outAt = OUT_AT
  private readonly tab: Int32Array
  private n = 0
  private at = ARENA_AT

  constructor(
    private readonly digest: (tab: number, n: number, out: number) => void,
    memory: WasmMemory
  ) {
    this.mem = new Uint8Array(memory.buffer)
    this.tab = new Int32Array(memory.buffer, TAB_AT, BATCH * 2)
  }

  get size(): number {
    return this.n
  }

  full(): boolean {
    return this.n === BATCH
  }

  /** Where the next message of `len` bytes goes (its padding is written by run). */
  message(len: number): number {
    const at = this.at
    this.tab[this.n * 2] = at
    this.tab[this.n * 2 + 1] = len
    this.n++
    this.at = at + ((len + 72) & ~63)
    return at
  }

  /** Hashes the batch; returns how many digests were written. */
  run(): number {
    const n = this.n
    if (n > 0) this.digest(TAB_AT, n, OUT_AT)
    this.n = 0
    this.at = ARENA_AT
    return n
  }
}

/** A batch of its own (one memory per caller), or undefined where WebAssembly is unavailable. */
export const makeSha256Batch = (): Sha256Batch | undefined => {
  const m = compile()
  if (m === null || wasmApi === undefined) return undefined
  try {
    const instance = new wasmApi.Instance(m, {})
    const memory = instance.exports["memory"] as WasmMemory
    const pages = Math.ceil(ARENA_END / PAGE)
    if (memory.buffer.byteLength < pages * PAGE) memory.grow(pages - memory.buffer.byteLength / PAGE)
    return new Sha256Batch(instance.exports["digest"] as (tab: number, n: number, out: number) => void, memory)
  } catch {
    return undefined
  }
}

/** SHA-256 of one byte string through a batch of one (for tests and single messages up to 311 bytes). */
export const sha256WasmOnce = (batch: Sha256Batch, data: Uint8Array): Uint8Array => {
  const at = batch.message(data.length)
  batch.mem.set(data, at)
  batch.run()
  return batch.mem.slice(batch.outAt, batch.outAt + 32)
}
