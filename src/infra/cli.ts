// Command-line options of the runnables: node's parseArgs with a usage text, so `--help` prints it and a wrong option
// gives one line naming the problem plus the usage (exit 2) instead of a stack trace.
import { parseArgs, type ParseArgsConfig } from "node:util"

type Options = NonNullable<ParseArgsConfig["options"]>

/** Parses `process.argv` against `options` (strict, no positionals); exits on --help (0) or a bad option (2). */
export const parseCli = <const O extends Options>(options: O, usage: string) => {
  const wantsHelp = process.argv.slice(2).some((a) => a === "--help" || a === "-h")
  if (wantsHelp) {
    process.stdout.write(`${usage.trim()}\n`)
    process.exit(0)
  }
  try {
    return parseArgs({ options, strict: true, allowPositionals: false }).values
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n${usage.trim()}\n`)
    process.exit(2)
  }
}
