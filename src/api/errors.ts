/**
 * Every failure the HTTP edge can report, and the one table that turns it into a status and a body in
 * toncenter's shapes: v2 `{"ok":false,"error":..,"code":N}` (code = HTTP status), v3 `{"error":..}`.
 * Invariant: a client mistake is always a 4xx with a message naming what is wrong; 5xx means our side failed.
 */
import { Schema } from "effect"

export const ApiErrorReason = Schema.Literal(
  "invalid_parameter",
  "not_found",
  "method_not_allowed",
  "unauthorized",
  "rate_limited",
  "payload_too_large",
  "unsupported_media_type",
  "unavailable"
)
export type ApiErrorReason = typeof ApiErrorReason.Type

export class ApiError extends Schema.TaggedError<ApiError>()("ApiError", {
  reason: ApiErrorReason,
  message: Schema.String
}) {}

export const statusOf: Record<ApiErrorReason, number> = {
  invalid_parameter: 422,
  not_found: 404,
  method_not_allowed: 405,
  unauthorized: 401,
  rate_limited: 429,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unavailable: 503
}

export const invalid = (message: string): ApiError => new ApiError({ reason: "invalid_parameter", message })
export const notFound = (message: string): ApiError => new ApiError({ reason: "not_found", message })

export type ApiFlavor = "v2" | "v3"

/** Which error dialect a URL speaks: v3 paths answer like ton-index-go, everything else like ton-http-api. */
export const flavorOf = (url: string): ApiFlavor => {
  const path = url.split("?", 1)[0]!
  return path.startsWith("/api/v3/") || path === "/api/v3" ? "v3" : "v2"
}

export interface ErrorBody {
  readonly status: number
  readonly body: { readonly ok: false; readonly error: string; readonly code: number } | { readonly error: string }
}

export const errorBody = (flavor: ApiFlavor, status: number, message: string): ErrorBody =>
  flavor === "v3" ? { status, body: { error: message } } : { status, body: { ok: false, error: message, code: status } }

export const apiErrorBody = (flavor: ApiFlavor, e: ApiError): ErrorBody =>
  errorBody(flavor, statusOf[e.reason], e.message)
