/**
 * A TL-B interpreter over the scheme parsed by @ton-community/tlb-parser: reads a cell slice by a type of the scheme
 * and renders it the way toncenter's ton-marker prints TL-B values (tlbc-generated printers writing to its
 * JsonPrinter). Invariant, the rendering rules: a constructor with fields is an object opening with "@type" (none for
 * an anonymous `_` constructor), one without fields is {"@type": name}; every integer is a decimal string, bit
 * strings are upper-case hex (td's `_` completion for lengths not a multiple of 4); a field of a one-bit type (Bool, Bit,
 * uint1) is a JSON boolean, the same type through a type argument a constructor object; Cell/Any print as the base64 BOC
 * (no index, no CRC) of the cell they span, held here as a `CellValue` until the caller decides (a read that fails
 * later never pays for a BOC); SnakeString prints as text and fails on invalid UTF-8. A failed read throws
 * `NO_PARSE`, never a partial value.
 */
import { beginCell, type Cell, type Slice } from "@ton/core"
import type { Declaration, Expression, Program } from "@ton-community/tlb-parser/dist/ast/nodes.js"
import * as nodes from "@ton-community/tlb-parser/dist/ast/nodes.js"
import { loadIntBits, loadSmallUint, loadUintBits, preloadSmallUint } from "./bits.js"
import { serializeBoc } from "../boc.js"

// The syntax tree's classes, bound once: a bundle (esbuild) reads a CommonJS module's named exports through a getter
// at every use, which the interpreter's hot paths (an `instanceof` per field and per value) paid on each read.
const {
  BuiltinOneArgExpr,
  BuiltinZeroArgs,
  CellRefExpr,
  CombinatorExpr,
  CompareExpr,
  FieldBuiltinDef,
  FieldCurlyExprDef,
  FieldNamedDef,
  MathExpr,
  NameExpr,
  NumberExpr
} = nodes

/** A cell in a TL-B value: printed as `markerBoc(cell)` unless it is replaced by its own decoding. */
export class CellValue {
  constructor(readonly cell: Cell) {}
}

export type TlbJson = string | boolean | CellValue | { readonly [key: string]: TlbJson }

/** Thrown when the bits do not fit the type; callers turn it into "not decoded". */
export const NO_PARSE: unique symbol = Symbol("no parse")

interface Closure {
  readonly expr: Expression
  readonly env: Env
}
type Env = Map<string, number | Closure>

/**
 * The environment of a constructor without type parameters that binds no field: shared, never written (`construct`
 * makes a map of its own for a constructor that binds a field, `unify` for one with parameters), so that reading one
 * makes no map.
 */
export const EMPTY_ENV: Env = new Map()
const NO_ARGS: ReadonlyArray<number | Closure> = []

export interface Cons {
  readonly name: string | null
  readonly type: string
  readonly tagBits: string
  /** The tag's bits as a number (0 without a tag; tags are at most 32 bits). */
  readonly tagValue: number
  readonly decl: Declaration
  readonly hasFields: boolean
  /** Whether reading it binds a field's value by name (a nat a later field refers to): it needs an environment of its own. */
  readonly bindsFields: boolean
}

/** A scheme this interpreter cannot read (a bug of the scheme file, never of the data). */
export class SchemeError extends Error {}

const fail = (): never => {
  throw NO_PARSE
}

const tagBitsOf = (tag: string | null): string => {
  if (tag === null || tag === "$_" || tag === "#_") return ""
  if (tag.startsWith("$")) return tag.slice(1)
  return [...tag.slice(1)].map((d) => parseInt(d, 16).toString(2).padStart(4, "0")).join("")
}

/**
 * A scheme's syntax tree and the constructor names it lists under stand-ins: tlbc reads a constructor name listing
 * several names separated by commas as one name; the parser does not, so such a name is parsed under a stand-in and
 * printed as written.
 */
export interface ParsedScheme {
  readonly program: Program
  readonly listed: ReadonlyMap<string, string>
}

/** The scheme, indexed by type name; constructors keep their order in the file. */
export class Scheme {
  readonly types = new Map<string, Array<Cons>>()

  /** From the parsed form (`parseScheme` in ./parseScheme.ts, or the stored tree of ./schemes.ast.ts). */
  constructor(parsed: ParsedScheme) {
    const { program, listed } = parsed
    for (const decl of program.declarations) {
      const own = decl.constructorDef.name
      const name = own === "_" ? null : (listed.get(own) ?? own)
      const type = decl.combinator.name
      const hasFields = decl.fields.some((f) => !(f instanceof FieldBuiltinDef) && !(f instanceof FieldCurlyExprDef))
      const tagBits = tagBitsOf(decl.constructorDef.tag)
      const tagValue = tagBits === "" ? 0 : parseInt(tagBits, 2)
      const bindsFields = decl.fields.some((f) => f instanceof FieldNamedDef && bindsField(f.expr))
      const cons: Cons = { name, type, tagBits, tagValue, decl, hasFields, bindsFields }
      const list = this.types.get(type)
      if (list) list.push(cons)
      else this.types.set(type, [cons])
    }
  }

  constructors(type: string): ReadonlyArray<Cons> {
    const list = this.types.get(type)
    if (!list) throw new SchemeError(`TL-B type ${type} is not in the scheme`)
    return list
  }

  private readonly oneBit = new Map<string, boolean>()

  /**
   * tlbc's `is_bool`: a type without parameters whose values are exactly one bit, either value allowed (Bool's
   * false$0/true$1, Bit's `_ bit:(## 1)`). A field of such a type is printed by `fetch_bool_field`: a JSON boolean.
   */
  isOneBit(type: string): boolean {
    const known = this.oneBit.get(type)
    if (known !== undefined) return known
    const list = this.types.get(type) ?? []
    const bitsOf = (c: Cons): number | null => {
      if (c.decl.combinator.args.length > 0) return null
      let n = c.tagBits.length
      for (const f of c.decl.fields) {
        if (f instanceof FieldBuiltinDef || f instanceof FieldCurlyExprDef) return null
        if (!(f instanceof FieldNamedDef)) return null
        const e = f.expr
        if (e instanceof BuiltinOneArgExpr && e.name === "##" && e.arg instanceof NumberExpr) n += e.arg.num
        else if (e instanceof NameExpr && /^(uint|int|bits)\d+$/.test(e.name)) n += Number(/\d+$/.exec(e.name)![0])
        else return null
      }
      return n
    }
    const sizes = list.map(bitsOf)
    const tags = new Set(list.map((c) => c.tagBits))
    const result =
      list.length > 0 &&
      sizes.every((n) => n === 1) &&
      ((list.length === 1 && list[0]!.tagBits === "") || (list.length === 2 && tags.has("0") && tags.has("1")))
    this.oneBit.set(type, result)
    return result
  }
}

/** The BOC form ton-marker prints a cell in: vm::std_boc_serialize's default mode, no index and no CRC32C. */
export const markerBoc = (cell: Cell): string => {
  const withCrc = serializeBoc(cell)
  const out = Buffer.from(withCrc.subarray(0, withCrc.length - 4))
  out[4] = out[4]! & ~0x40
  return out.toString("base64")
}

const HEX = "0123456789ABCDEF"
/** Two upper-case hex digits per byte value. */
const HEX2 = Array.from({ length: 256 }, (_, b) => HEX[b >> 4]! + HEX[b & 15]!)

/**
 * td's BitSlice::to_hex: whole nibbles in upper case; a partial last nibble gets a completion tag and `_`. Whole
 * bytes are read a byte at a time (long ones, as a signature's 512 bits, as one buffer written as hex), then the
 * nibbles left.
 */
const bitsHex = (s: Slice, n: number): string => {
  if (s.remainingBits < n) fail()
  const bytes = n >> 3
  let out = ""
  if (bytes >= 8) out = s.loadBuffer(bytes).toString("hex").toUpperCase()
  else for (let i = 0; i < bytes; i++) out += HEX2[loadSmallUint(s, 8)]
  let left = n - bytes * 8
  if (left >= 4) {
    out += HEX[loadSmallUint(s, 4)]
    left -= 4
  }
  if (left > 0) {
    const v = (loadSmallUint(s, left) << (4 - left)) | (1 << (3 - left))
    out += HEX[v] + "_"
  }
  return out
}

const restCell = (s: Slice): Cell => {
  const cell = s.asCell()
  s.skip(s.remainingBits)
  while (s.remainingRefs > 0) s.loadRef()
  return cell
}

const utf8 = new TextDecoder("utf-8", { fatal: true })

/** tlb::SnakeString: the bytes of this cell's remaining bits and of its chain of single refs, as UTF-8. */
const snakeString = (s: Slice): string => {
  const bytes: Array<number> = []
  let cur = s
  for (let cells = 0; ; cells++) {
    if (cells >= 1000) fail()
    while (cur.remainingBits >= 8) bytes.push(loadSmallUint(cur, 8))
    const tail = cur.remainingBits
    if (tail > 0) bytes.push(loadSmallUint(cur, tail) << (8 - tail))
    if (cur.remainingRefs > 1) fail()
    if (cur.remainingRefs === 0) break
    cur = cur.loadRef().beginParse(true)
  }
  try {
    return utf8.decode(Uint8Array.from(bytes))
  } catch {
    return fail()
  }
}

/** Bits of `## n`, `#< n` (ceil(log2 n)) and `#<= n` (ceil(log2(n + 1))). */
const natBits = (op: "##" | "#<" | "#<=", bound: number): number =>
  op === "##" ? bound : op === "#<" ? (bound <= 1 ? 0 : (bound - 1).toString(2).length) : leqBits(bound)

const leqBits = (bound: number): number => (bound <= 0 ? 0 : bound.toString(2).length)

/** tlbc's fetch_uint_less / fetch_uint_leq: a `#< n` value is below n, a `#<= n` value at most n. */
const withinBound = (op: "#<" | "#<=", bound: number, v: bigint): void => {
  if (op === "#<" ? v >= BigInt(bound) : v > BigInt(bound)) fail()
}

const checkBits = (s: Slice, n: number): void => {
  if (n < 0 || s.remainingBits < n) fail()
}

const loadUnsigned = (s: Slice, n: number): bigint => {
  checkBits(s, n)
  return loadUintBits(s, n)
}

const loadSigned = (s: Slice, n: number): bigint => {
  checkBits(s, n)
  return loadIntBits(s, n)
}

const FIXED = /^(uint|int|bits)(\d+)$/

/** A fixed-width type's name read as [kind, width] (`uint32` -> ["uint", 32]), or null for any other name. */
type Fixed = readonly [kind: string, width: number] | null
const fixedNames = new Map<string, Fixed>()
const fixedType = (name: string): Fixed => {
  let known = fixedNames.get(name)
  if (known === undefined) {
    const m = FIXED.exec(name)
    known = m === null ? null : [m[1]!, Number(m[2])]
    fixedNames.set(name, known)
  }
  return known
}

/** Whether `construct` binds a field of this type in its environment (see there). */
const bindsField = (expr: Expression): boolean => {
  if (expr instanceof BuiltinOneArgExpr || expr instanceof BuiltinZeroArgs) return true
  if (!(expr instanceof NameExpr)) return false
  const fixed = fixedType(expr.name)
  return fixed !== null && fixed[0] !== "bits" && fixed[1] <= 32
}

export class Interpreter {
  /** Dictionary sub-edges already read, by value type, cell and width (see subEdge). */
  private readonly edges = new WeakMap<Closure, WeakMap<Cell, Map<number, TlbJson>>>()

  constructor(readonly scheme: Scheme) {}

  private num(expr: Expression, env: Env): number | null {
    if (expr instanceof NumberExpr) return expr.num
    if (expr instanceof NameExpr) {
      const v = env.get(expr.name)
      return typeof v === "number" ? v : null
    }
    if (expr instanceof MathExpr) {
      const l = this.num(expr.left, env)
      const r = this.num(expr.right, env)
      if (l === null || r === null) return null
      return expr.op === "*" ? l * r : l + r
    }
    return null
  }

  private resolve(expr: Expression, env: Env): Closure {
    let cur: Closure = { expr, env }
    for (;;) {
      if (!(cur.expr instanceof NameExpr)) return cur
      const bound = cur.env.get(cur.expr.name)
      if (bound === undefined || typeof bound === "number") return cur
      cur = bound
    }
  }

  private isCellType(expr: Expression): boolean {
    return expr instanceof NameExpr && (expr.name === "Cell" || expr.name === "Any")
  }

  /** A value of type `expr` read from `s`. `direct`: the expression is a field's own type, not a type argument. */
  value(expr0: Expression, env0: Env, s: Slice, direct0 = false): TlbJson {
    const { expr, env } = this.resolve(expr0, env0)
    // A field typed by a parameter (`value:X`) prints X through the argument tlbc passed: not the field's own type.
    const direct = direct0 && expr === expr0
    if (expr instanceof CellRefExpr) {
      if (s.remainingRefs < 1) fail()
      const ref = s.loadRef()
      const inner = this.resolve(expr.expr, env)
      const v =
        this.isCellType(inner.expr) || ref.isExotic
          ? new CellValue(ref)
          : this.value(inner.expr, inner.env, ref.beginParse(), true)
      // A field's own ^X is printed by X's printer; a ^X reached through a type argument is tlblib's RefT, an
      // object {"cell_reference": X} -- except a literal ^Cell / ^Any argument, which tlbc turns into t_RefCell,
      // printed as the referenced cell.
      if (direct || this.isCellType(expr.expr)) return v
      return { cell_reference: v }
    }
    if (expr instanceof BuiltinOneArgExpr) {
      const bound = this.num(expr.arg, env)
      if (bound === null) throw new SchemeError("unbound nat bound in scheme")
      const n = natBits(expr.name, bound)
      // tlbc prints a nat read through a type argument with the generic printer: the BOC of its bits.
      if (!direct) {
        checkBits(s, n)
        if (expr.name !== "##" && n > 0) withinBound(expr.name, bound, loadUintBits(s.clone(), n))
        return new CellValue(beginCell().storeBits(s.loadBits(n)).endCell())
      }
      const v = loadUnsigned(s, n)
      if (expr.name !== "##") withinBound(expr.name, bound, v)
      return v.toString()
    }
    if (expr instanceof BuiltinZeroArgs) return loadUnsigned(s, 32).toString()
    if (expr instanceof NameExpr) {
      const name = expr.name
      if (name === "Cell" || name === "Any") return new CellValue(restCell(s))
      if (name === "SnakeString") return snakeString(s)
      const fixed = fixedType(name)
      if (fixed !== null) return this.fixed(fixed[0], fixed[1], s)
      return this.typed(name, [], env, s)
    }
    if (expr instanceof CombinatorExpr) {
      if (expr.name === "uint" || expr.name === "int" || expr.name === "bits") {
        const n = this.num(expr.args[0]!, env)
        if (n === null) throw new SchemeError(`unbound width in ${expr.name}`)
        return this.fixed(expr.name, n, s)
      }
      return this.typed(expr.name, expr.args, env, s)
    }
    throw new SchemeError(`unsupported TL-B expression ${expr.constructor.name}`)
  }

  private fixed(kind: string, n: number, s: Slice): string {
    if (kind === "bits") return bitsHex(s, n)
    return (kind === "uint" ? loadUnsigned(s, n) : loadSigned(s, n)).toString()
  }

  /** A value of a scheme type applied to `args` (evaluated in `env`). */
  typed(type: string, args: ReadonlyArray<Expression | number>, env: Env, s: Slice): TlbJson {
    let actual = NO_ARGS
    if (args.length > 0) {
      const list = new Array<number | Closure>(args.length)
      for (let i = 0; i < args.length; i++) {
        const a = args[i]!
        if (typeof a === "number") list[i] = a
        else {
          const n = this.num(a, env)
          list[i] = n !== null ? n : ({ expr: a, env } satisfies Closure)
        }
      }
      actual = list
    }
    if (type === "HashmapE" || type === "Hashmap") return this.hashmap(type, actual, s)
    for (const cons of this.scheme.constructors(type)) {
      // both checks are pure; the tag's, which makes nothing, first
      if (!this.tagMatches(cons, s)) continue
      const bound = this.unify(cons, actual)
      if (bound === null) continue
      return this.construct(cons, bound, s)
    }
    return fail()
  }

  /**
   * Dictionaries, read natively because their labels use negative type parameters (`HmLabel ~l n`), printed as
   * tlbc prints the standard hashmap scheme: hashmap_empty / hashmap_root, hashmap_edge {label, node},
   * hashmap_label_short {len: unary, s} / _long {n, s} / _same {v: {bit}, n}, hashmap_node_leaf {value} /
   * hashmap_node_fork {left, right}; label bits are hex like every bit string.
   */
  private hashmap(type: string, actual: ReadonlyArray<number | Closure>, s: Slice): TlbJson {
    const [n, value] = actual
    if (typeof n !== "number" || value === undefined || typeof value === "number") {
      throw new SchemeError(`${type} needs a width and a value type`)
    }
    if (type === "HashmapE") {
      if (s.remainingBits < 1) fail()
      if (!s.loadBit()) return { "@type": "hashmap_empty" }
      if (s.remainingRefs < 1) fail()
      return { "@type": "hashmap_root", root: this.edge(n, value, s.loadRef().beginParse()) }
    }
    return this.edge(n, value, s)
  }

  private edge(n: number, value: Closure, s: Slice): TlbJson {
    const { label, length } = this.label(n, s)
    const m = n - length
    if (m < 0) fail()
    let node: TlbJson
    if (m === 0) node = { "@type": "hashmap_node_leaf", value: this.value(value.expr, value.env, s) }
    else {
      if (s.remainingRefs < 2) fail()
      const left = this.subEdge(m - 1, value, s.loadRef())
      const right = this.subEdge(m - 1, value, s.loadRef())
      node = { "@type": "hashmap_node_fork", left, right }
    }
    return { "@type": "hashmap_edge", label, node }
  }

  /**
   * A dictionary's sub-edge in its own cell. A BOC stores identical subtrees once, so a dictionary whose values
   * repeat (a highload wallet sending one message 254 times) holds a few cells referenced many times: each
   * (cell, width, value type) is read once and its printed value shared (values are never mutated), which turns
   * the walk from exponential in the tree's depth into linear in its distinct cells. The printed JSON is unchanged.
   */
  private subEdge(n: number, value: Closure, cell: Cell): TlbJson {
    let byCell = this.edges.get(value)
    if (byCell === undefined) this.edges.set(value, (byCell = new WeakMap()))
    let byWidth = byCell.get(cell)
    if (byWidth === undefined) byCell.set(cell, (byWidth = new Map()))
    const hit = byWidth.get(n)
    if (hit !== undefined) return hit
    const v = this.edge(n, value, cell.beginParse())
    byWidth.set(n, v)
    return v
  }

  private label(m: number, s: Slice): { label: TlbJson; length: number } {
    if (s.remainingBits < 1) fail()
    if (!s.loadBit()) {
      let length = 0
      const ones: Array<null> = []
      for (;;) {
        if (s.remainingBits < 1) fail()
        if (!s.loadBit()) break
        ones.push(null)
        length++
      }
      if (length > m) fail()
      let len: TlbJson = { "@type": "unary_zero" }
      for (let i = 0; i < ones.length; i++) len = { "@type": "unary_succ", x: len }
      return { label: { "@type": "hashmap_label_short", len, s: bitsHex(s, length) }, length }
    }
    if (s.remainingBits < 1) fail()
    const same = s.loadBit()
    const width = leqBits(m)
    if (!same) {
      const length = Number(loadUnsigned(s, width))
      if (length > m) fail()
      return { label: { "@type": "hashmap_label_long", n: String(length), s: bitsHex(s, length) }, length }
    }
    if (s.remainingBits < 1) fail()
    const bit = s.loadBit()
    const length = Number(loadUnsigned(s, width))
    if (length > m) fail()
    return { label: { "@type": "hashmap_label_same", v: bit, n: String(length) }, length }
  }

  tagMatches(cons: Cons, s: Slice): boolean {
    const len = cons.tagBits.length
    if (len === 0) return true
    if (s.remainingBits < len) return false
    return preloadSmallUint(s, len) === cons.tagValue
  }

  private unify(cons: Cons, actual: ReadonlyArray<number | Closure>): Env | null {
    const patterns = cons.decl.combinator.args
    if (patterns.length !== actual.length) return null
    if (patterns.length === 0) return EMPTY_ENV
    const env: Env = new Map()
    for (let i = 0; i < patterns.length; i++) {
      const p = patterns[i]!
      const a = actual[i]!
      if (p instanceof NameExpr) env.set(p.name, a)
      else if (p instanceof NumberExpr) {
        if (a !== p.num) return null
      } else if (p instanceof MathExpr && p.op === "+" && p.left instanceof NameExpr && p.right instanceof NumberExpr) {
        if (typeof a !== "number" || a < p.right.num) return null
        env.set(p.left.name, a - p.right.num)
      } else return null
    }
    return env
  }

  /** A constraint between fields read so far (`{ depth >= 1 }`): a value breaking it does not parse. */
  private constraint(expr: Expression, env: Env): void {
    if (!(expr instanceof CompareExpr)) throw new SchemeError("unsupported TL-B constraint")
    const l = this.num(expr.left, env)
    const r = this.num(expr.right, env)
    if (l === null || r === null) throw new SchemeError("unbound name in a TL-B constraint")
    const holds =
      expr.op === "<=" ? l <= r : expr.op === ">=" ? l >= r : expr.op === "<" ? l < r : expr.op === ">" ? l > r : expr.op === "=" ? l === r : l !== r
    if (!holds) fail()
  }

  /** One constructor: its tag is skipped (the caller checked it), then every explicit field in order. */
  construct(cons: Cons, env0: Env, s: Slice): TlbJson {
    s.skip(cons.tagBits.length)
    if (!cons.hasFields) return { "@type": cons.name ?? "" }
    const env = cons.bindsFields && env0 === EMPTY_ENV ? new Map() : env0
    const out: Record<string, TlbJson> = cons.name === null ? {} : { "@type": cons.name }
    for (const field of cons.decl.fields) {
      if (field instanceof FieldCurlyExprDef) {
        this.constraint(field.expr, env)
        continue
      }
      if (field instanceof FieldBuiltinDef) continue
      if (!(field instanceof FieldNamedDef)) throw new SchemeError(`unsupported TL-B field in ${cons.name}`)
      const key = field.name === "_" ? "" : field.name
      const expr = field.expr
      if (expr instanceof BuiltinOneArgExpr || expr instanceof BuiltinZeroArgs) {
        const text = this.value(expr, env, s, true) as string
        env.set(field.name, Number(text))
        out[key] = text
        continue
      }
      if (expr instanceof NameExpr && !env.has(expr.name) && (expr.name === "uint1" || this.scheme.isOneBit(expr.name))) {
        if (s.remainingBits < 1) fail()
        out[key] = s.loadBit()
        continue
      }
      if (expr instanceof NameExpr) {
        const fixed = fixedType(expr.name)
        if (fixed !== null && fixed[0] !== "bits" && fixed[1] <= 32) {
          const text = this.fixed(fixed[0], fixed[1], s)
          env.set(field.name, Number(text))
          out[key] = text
          continue
        }
      }
      out[key] = this.value(expr, env, s, true)
    }
    return out
  }
}
