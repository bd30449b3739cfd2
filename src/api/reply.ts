/**
 * How every response leaves the app: we serialize ourselves (Python dialect for v2, Go dialect for v3)
 * and hand Fastify a finished string, so the bytes are exactly toncenter's and no schema serializer can
 * reorder keys or coerce nulls. Cache headers say whether the answer can ever change.
 */
import type { FastifyReply } from "fastify"
import { goJson, pythonJson } from "./json.js"
import type { ApiFlavor } from "./errors.js"

/** Data of a completely ingested masterchain block never changes: clients and proxies may keep it forever. */
export const IMMUTABLE = "public, max-age=31536000, immutable"
/** A block that is not (yet) ingested may appear any moment: never cache the miss. */
export const NO_STORE = "no-store"

/** The v3 transactions answer with an address book: its bounceable flags follow the latest known code. */
export const ADDRESS_BOOK_CACHE = "public, max-age=60"

/** Sends JSON text (or its UTF-8 bytes) that is already in the right dialect. */
export const sendText = (
  reply: FastifyReply,
  status: number,
  text: string | Buffer,
  cacheControl: string = NO_STORE
): FastifyReply =>
  reply
    .code(status)
    .header("content-type", "application/json")
    .header("cache-control", cacheControl)
    // A Buffer goes out untouched: a string would get "; charset=utf-8" appended, which toncenter does not send.
    .send(typeof text === "string" ? Buffer.from(text, "utf8") : text)

export const sendJson = (
  reply: FastifyReply,
  flavor: ApiFlavor,
  status: number,
  body: unknown,
  cacheControl: string = NO_STORE
): FastifyReply => sendText(reply, status, flavor === "v3" ? goJson(body) : pythonJson(body), cacheControl)
