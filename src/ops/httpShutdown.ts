/**
 * Closing an HTTP server within a deadline whatever its clients do: stop accepting, let requests in flight finish
 * and idle keep-alive sockets go, then destroy every socket still open when the deadline passes (a client that sent
 * half a request, or reads a response slowly, holds `server.close()` forever otherwise). Invariant: the promise
 * settles by `deadlineMs` plus the time sockets take to be destroyed, and says how many were cut.
 */
import type { Server } from "node:http"
import type { Socket } from "node:net"

export interface ClosedServer {
  /** Connections open when closing began. */
  readonly open: number
  /** Connections destroyed at the deadline. */
  readonly cut: number
  readonly ms: number
}

const tracked = new WeakMap<Server, Set<Socket>>()

/** Starts counting the server's sockets; call before it listens. */
export const trackConnections = (server: Server): void => {
  if (tracked.has(server)) return
  const sockets = new Set<Socket>()
  tracked.set(server, sockets)
  server.on("connection", (socket: Socket) => {
    sockets.add(socket)
    socket.once("close", () => sockets.delete(socket))
  })
}

/**
 * Stops the server: `close` (or `server.close`) begins the drain; after `deadlineMs` every remaining socket is
 * destroyed. `close` may be a framework's own close (Fastify's `app.close()`), which ends with the server's.
 */
export const closeWithDeadline = async (
  server: Server,
  deadlineMs: number,
  close: () => Promise<void> = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve()
      server.close(() => resolve())
    })
): Promise<ClosedServer> => {
  const started = Date.now()
  const sockets = tracked.get(server)
  const open = sockets?.size ?? 0
  let cut = 0
  const done = close()
  server.closeIdleConnections()
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<"deadline">((resolve) => {
    timer = setTimeout(() => resolve("deadline"), deadlineMs)
  })
  const first = await Promise.race([done.then(() => "closed" as const), deadline])
  clearTimeout(timer)
  if (first === "deadline") {
    cut = sockets?.size ?? 0
    if (sockets !== undefined) for (const s of sockets) s.destroy()
    server.closeAllConnections()
    await done
  }
  return { open, cut, ms: Date.now() - started }
}

export const describeClosed = (name: string, c: ClosedServer, deadlineMs: number): string =>
  `${name}: stopped in ${(c.ms / 1000).toFixed(1)} s` +
  (c.open === 0
    ? ""
    : c.cut === 0
      ? ` (${c.open} connection${c.open === 1 ? "" : "s"} drained)`
      : ` (${c.cut} of ${c.open} connection${c.open === 1 ? "" : "s"} cut after the ${deadlineMs / 1000} s drain deadline)`)
