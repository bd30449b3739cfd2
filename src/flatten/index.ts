/**
 * Public surface of the flattening layer: canonical records in, ClickHouse JSONEachRow rows out (pure, no I/O).
 * Row shapes equal what ClickHouse returns with 64-bit integers quoted, so readers reuse the same types.
 */
export * from "./account_states.js"
export * from "./blocks.js"
export * from "./bundle.js"
export * from "./latest_account_code.js"
export * from "./mc_blocks_done.js"
export * from "./mc_shard_blocks.js"
export * from "./mc_shards_kv.js"
export * from "./message_contents.js"
export * from "./messages.js"
export * from "./transactions.js"
