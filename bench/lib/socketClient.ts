// A raw keep-alive HTTP/1.1 client for the lone-request benches (bench/loneBreakdown.ts, bench/lonePair.ts): what a
// request costs the server and the socket without an HTTP client library's own work on top (fetch adds ~1.3 ms).
import { connect, type Socket } from "node:net"

/** A keep-alive socket to a port: each request's bytes written at once, its answer read to its Content-Length. */
export const socketClient = async (port: number): Promise<{ get: (path: string) => Promise<number>; close: () => void }> => {
  const socket: Socket = await new Promise((ok, fail) => {
    const s = connect(port, "127.0.0.1", () => ok(s))
    s.on("error", fail)
  })
  socket.setNoDelay(true)
  let pending: { buf: Buffer; need: number; resolve: (n: number) => void } | null = null
  socket.on("data", (d: Buffer) => {
    const p = pending
    if (p === null) return
    p.buf = p.buf.length === 0 ? d : Buffer.concat([p.buf, d])
    if (p.need < 0) {
      const head = p.buf.indexOf("\r\n\r\n")
      if (head < 0) return
      const m = /content-length: *(\d+)/i.exec(p.buf.toString("latin1", 0, head))
      if (m === null) throw new Error("an answer without Content-Length")
      if (!p.buf.toString("latin1", 0, 12).endsWith("200")) throw new Error(`not 200: ${p.buf.toString("latin1", 0, 40)}`)
      p.need = head + 4 + Number(m[1])
    }
    if (p.buf.length >= p.need) {
      pending = null
      p.resolve(p.need)
    }
  })
  return {
    get: (path) =>
      new Promise((ok) => {
        pending = { buf: Buffer.alloc(0), need: -1, resolve: ok }
        socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)
      }),
    close: () => socket.destroy()
  }
}
