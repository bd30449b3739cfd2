/** The generators' entry to the shared cell-hash speed-up, which lives with the TON domain code (src/ton/fastHash.ts). */
export { installFastCellHash } from "../../src/ton/fastHash.js"
