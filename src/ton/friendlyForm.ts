/**
 * The user-friendly form of a raw address, made directly: "wc:HEX" -> tag, workchain byte, 32 hash bytes and their
 * CRC16-XMODEM -> 48 characters of base64 (url-safe or standard), with no Address object and no intermediate strings.
 * An uncached v3 page's address book makes hundreds of these. @ton/core's `Address.parseRaw(raw).toString(...)` is
 * the reference (test/unit/ton/friendlyForm.test.ts compares the two); input it would take leniently (a workchain
 * outside -128..127, a hash not of exactly 64 hex digits) is refused here with a `RangeError`.
 */

const BOUNCEABLE_TAG = 0x11
const NON_BOUNCEABLE_TAG = 0x51
const TEST_FLAG = 0x80

// hex digit -> value, -1 for any other character code below 128
const HEX_VALUE = ((): Int8Array => {
  const t = new Int8Array(128).fill(-1)
  for (let i = 0; i < 10; i++) t[48 + i] = i
  for (let i = 0; i < 6; i++) t[65 + i] = t[97 + i] = 10 + i
  return t
})()

// CRC16-XMODEM (polynomial 0x1021, initial 0), one table step per byte
const CRC_TABLE = ((): Uint16Array => {
  const t = new Uint16Array(256)
  for (let b = 0; b < 256; b++) {
    let r = b << 8
    for (let k = 0; k < 8; k++) r = r & 0x8000 ? ((r << 1) ^ 0x1021) & 0xffff : (r << 1) & 0xffff
    t[b] = r
  }
  return t
})()

const codes = (alphabet: string): Uint8Array => Uint8Array.from(alphabet, (c) => c.charCodeAt(0))
const STANDARD = codes("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
const URL_SAFE = codes("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

// one thread's scratch: the 36 bytes, then the 48 characters as latin1 bytes (a string is made from them once)
const bytes = new Uint8Array(36)
const chars = Buffer.alloc(48)

const refuse = (raw: string): never => {
  throw new RangeError(`not a raw address (wc:64 hex digits, wc in -128..127): ${JSON.stringify(raw)}`)
}

/** The 48-character user-friendly form of raw `wc:HEX` (hex digits in either case). Throws RangeError otherwise. */
export const friendlyForm = (raw: string, bounceable: boolean, testnet: boolean, urlSafe: boolean): string => {
  const n = raw.length
  let i = raw.charCodeAt(0) === 45 ? 1 : 0 // -
  const digits = i
  let wc = 0
  for (; i < n && i - digits < 4; i++) {
    const c = raw.charCodeAt(i) - 48
    if (c < 0 || c > 9) break
    wc = wc * 10 + c
  }
  if (i === digits || raw.charCodeAt(i) !== 58 || n !== i + 65) return refuse(raw) // : and 64 digits after it
  if (digits === 1) wc = -wc
  if (wc < -128 || wc > 127) return refuse(raw)
  const tag = (bounceable ? BOUNCEABLE_TAG : NON_BOUNCEABLE_TAG) | (testnet ? TEST_FLAG : 0)
  bytes[0] = tag
  bytes[1] = wc & 0xff
  let crc = CRC_TABLE[tag]!
  crc = ((crc << 8) & 0xffff) ^ CRC_TABLE[(crc >> 8) ^ (wc & 0xff)]!
  for (let j = 2, k = i + 1; j < 34; j++, k += 2) {
    const hi = raw.charCodeAt(k)
    const lo = raw.charCodeAt(k + 1)
    const h = hi < 128 ? HEX_VALUE[hi]! : -1
    const l = lo < 128 ? HEX_VALUE[lo]! : -1
    if ((h | l) < 0) return refuse(raw)
    const b = (h << 4) | l
    bytes[j] = b
    crc = ((crc << 8) & 0xffff) ^ CRC_TABLE[(crc >> 8) ^ b]!
  }
  bytes[34] = crc >> 8
  bytes[35] = crc & 0xff
  const alphabet = urlSafe ? URL_SAFE : STANDARD
  for (let j = 0, o = 0; j < 36; j += 3, o += 4) {
    const v = (bytes[j]! << 16) | (bytes[j + 1]! << 8) | bytes[j + 2]!
    chars[o] = alphabet[v >> 18]!
    chars[o + 1] = alphabet[(v >> 12) & 63]!
    chars[o + 2] = alphabet[(v >> 6) & 63]!
    chars[o + 3] = alphabet[v & 63]!
  }
  return chars.toString("latin1", 0, 48)
}
