import { afterEach, describe, expect, it, vi } from "vitest"
import { parseCli } from "../../../src/infra/cli.js"

const run = (argv: Array<string>) => {
  const saved = process.argv
  process.argv = ["node", "script", ...argv]
  const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true)
  const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true)
  const exit = vi.spyOn(process, "exit").mockImplementation((code) => {
    throw new Error(`exit ${code}`)
  })
  try {
    const values = parseCli({ seed: { type: "string", default: "1" }, fast: { type: "boolean" } }, "usage: thing [--seed S]")
    return { values, exit: undefined, out: out.mock.calls.join(""), err: err.mock.calls.join("") }
  } catch (e) {
    return { values: undefined, exit: (e as Error).message, out: out.mock.calls.join(""), err: err.mock.calls.join("") }
  } finally {
    process.argv = saved
    exit.mockRestore()
  }
}

describe("parseCli", () => {
  afterEach(() => vi.restoreAllMocks())

  it("parses known options with defaults", () => {
    expect(run(["--fast"]).values).toEqual({ seed: "1", fast: true })
    expect(run(["--seed", "7"]).values).toEqual({ seed: "7" })
  })

  it("prints the usage on --help and exits 0", () => {
    const r = run(["--seed", "7", "--help"])
    expect(r.exit).toBe("exit 0")
    expect(r.out).toBe("usage: thing [--seed S]\n")
  })

  it("names a wrong option in one line with the usage and exits 2", () => {
    const r = run(["--sed", "7"])
    expect(r.exit).toBe("exit 2")
    expect(r.err).toContain("error: Unknown option '--sed'")
    expect(r.err).toContain("usage: thing [--seed S]")
    expect(run(["stray"]).exit).toBe("exit 2")
  })
})
