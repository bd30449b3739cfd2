/**
 * Free loopback ports for the stand-ins, benchmarks and tests that start their own servers and brokers.
 * Invariant: a returned port p had p and p + 1 free on 127.0.0.1 when probed (the local broker's controller takes p + 1),
 * and lies in BENCH_PORTS (`lo-hi`) when that is set.
 */
import { createServer } from "node:net"

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
  const range = /^(\d+)-(\d+)$/.exec(process.env.BENCH_PORTS ?? "")
  if (range !== null) {
    // BENCH_PORTS=lo-hi: only ports of that range (a shared machine where each user has its own), from a random start.
    const [lo, hi] = [Number(range[1]), Number(range[2])]
    const start = lo + Math.floor(Math.random() * (hi - lo))
    for (let k = 0; k < hi - lo; k++) {
      const p = lo + ((start - lo + k) % (hi - lo))
      if ((await listen(p)) !== undefined && (await listen(p + 1)) !== undefined) return p
    }
    throw new Error(`BENCH_PORTS=${range[0]}: no two consecutive free ports on 127.0.0.1`)
  }
  for (let attempt = 0; attempt < 50; attempt++) {
    const p = await listen(0)
    if (p !== undefined && p < 65535 && (await listen(p + 1)) !== undefined) return p
  }
  throw new Error("no two consecutive free ports on 127.0.0.1")
}
