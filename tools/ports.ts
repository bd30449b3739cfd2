/**
 * Free loopback ports for the stand-ins, benchmarks and tests that start their own servers and brokers.
 * Invariant: a returned port p had p and p + 1 free on 127.0.0.1 when probed (the local broker's controller takes p + 1);
 * with PORT_RANGE=LOW-HIGH set, LOW <= p < p + 1 <= HIGH, and one process is not handed the same pair twice in a row.
 */
import { createServer } from "node:net"

/** PORT_RANGE as [low, high], or undefined (then the system picks ephemeral ports). */
const portRange = (): [number, number] | undefined => {
  const text = process.env.PORT_RANGE
  if (text === undefined || text === "") return undefined
  const m = /^(\d+)-(\d+)$/.exec(text)
  const [low, high] = m === null ? [NaN, NaN] : [Number(m[1]), Number(m[2])]
  if (!(low >= 1 && high <= 65535 && high > low)) throw new Error(`PORT_RANGE=${text}: expected LOW-HIGH, 1 <= LOW < HIGH <= 65535`)
  return [low, high]
}
/** Next port of PORT_RANGE to probe: pairs handed out are not probed again until the range wraps. */
let nextInRange: number | undefined

/** A port p on 127.0.0.1 with p+1 also free (the local broker's controller takes port + 1). */
export const freePortPair = async (): Promise<number> => {
  const listen = (port: number) =>
    new Promise<number | undefined>((resolvePromise) => {
      const s = createServer()
      s.once("error", () => resolvePromise(undefined))
      s.listen({ port, host: "127.0.0.1", exclusive: true }, () => {
        const got = (s.address() as { port: number }).port
        s.close(() => resolvePromise(got))
      })
    })
  const range = portRange()
  if (range !== undefined) {
    const [low, high] = range
    const span = high - low
    for (let tried = 0; tried < span; tried++) {
      const p = nextInRange === undefined || nextInRange < low || nextInRange >= high ? low : nextInRange
      nextInRange = p + 1
      if ((await listen(p)) !== undefined && (await listen(p + 1)) !== undefined) {
        nextInRange = p + 2
        return p
      }
    }
    throw new Error(`no two consecutive free ports in PORT_RANGE ${low}-${high}`)
  }
  for (let attempt = 0; attempt < 50; attempt++) {
    const p = await listen(0)
    if (p !== undefined && p < 65535 && (await listen(p + 1)) !== undefined) return p
  }
  throw new Error("no two consecutive free ports on 127.0.0.1")
}
