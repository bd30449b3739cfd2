/**
 * ClickHouse failures classified by exception code: the codes a server (through @clickhouse/client) and chdb
 * (through its connection adapter) report, and Node's socket codes, each map to one reason.
 */
import { ClickHouseError as ClientError } from "@clickhouse/client"
import { describe, expect, it } from "vitest"
import { reasonOfCode } from "../../../src/clickhouse/ClickHouse.js"

const serverError = (code: string, type: string) => new ClientError({ message: `${type}: x`, code, type })
const socketError = (code: string) => Object.assign(new Error(code), { code })

describe("reasonOfCode", () => {
  it.each([
    [serverError("516", "AUTHENTICATION_FAILED"), "AuthenticationFailed"],
    [serverError("192", "UNKNOWN_USER"), "AuthenticationFailed"],
    [serverError("497", "ACCESS_DENIED"), "AuthenticationFailed"],
    [serverError("159", "TIMEOUT_EXCEEDED"), "Timeout"],
    [serverError("209", "SOCKET_TIMEOUT"), "Timeout"],
    [socketError("ETIMEDOUT"), "Timeout"],
    [serverError("62", "SYNTAX_ERROR"), "SyntaxError"],
    [serverError("210", "NETWORK_ERROR"), "Unreachable"],
    [socketError("ECONNREFUSED"), "Unreachable"],
    [socketError("ECONNRESET"), "Unreachable"]
  ])("%s -> %s", (cause, reason) => {
    expect(reasonOfCode(cause)).toBe(reason)
  })

  it("leaves other failures to the caller's default", () => {
    expect(reasonOfCode(serverError("60", "UNKNOWN_TABLE"))).toBeUndefined()
    expect(reasonOfCode(new Error("no code"))).toBeUndefined()
    expect(reasonOfCode(undefined)).toBeUndefined()
  })
})
