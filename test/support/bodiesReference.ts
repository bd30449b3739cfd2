/**
 * A bundle's `decoded_bodies` as the v3 object renderer gives them: every message of every transaction in the order
 * the v3 JSON lists them (in_msg, then out_msgs by created_lt), each body's `message_content.decoded` through goJson,
 * the first time its hash comes and only when not null. The reference the producer's record is compared with.
 */
import { goJson } from "../../src/api/json.js"
import { BODY_DECODER_VERSION } from "../../src/ton/bodies/version.js"
import type { DecodedBodies, MasterchainBundle } from "../../src/ton/record.js"
import { renderV3Transaction } from "../../src/ton/v3.js"

export const decodedBodiesReference = (bundle: Pick<MasterchainBundle, "transactions">): DecodedBodies => {
  const texts: Record<string, string> = {}
  for (const tx of bundle.transactions) {
    const v3 = renderV3Transaction(tx, new Map())
    for (const m of [...(v3.in_msg === null ? [] : [v3.in_msg]), ...v3.out_msgs]) {
      const content = m.message_content!
      if (content.decoded !== null && !(content.hash in texts)) texts[content.hash] = goJson(content.decoded)
    }
  }
  return { decoder_version: BODY_DECODER_VERSION, texts }
}
