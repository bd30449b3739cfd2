/**
 * Public API of the TON domain: decoding BOCs into canonical records and rendering toncenter's v2 and v3 shapes.
 * Invariant: everything here is pure and total (errors are values), so any stage can call it without effects.
 */
export * from "./address.js"
export { crc32c, decodeBase64, parseBoc, parseBocBytes, serializeBoc, serializeBocBase64 } from "./boc.js"
export * from "./block.js"
export {
  bodyOpcode,
  decodeTransaction,
  decodeTransactionCell,
  extraCurrencies,
  type DecodeContext,
  type DecodeOptions
} from "./decode.js"
export * from "./errors.js"
export type * from "./record.js"
export * from "./v2.js"
export * from "./v3.js"
