/**
 * One ADNL connection to one liteserver: the `adnl` package's TCP client for the handshake and encryption,
 * ton-lite-client's TL codecs for the lite API, queries matched to answers by their 256-bit query id.
 * Invariant: every query settles exactly once: with its decoded answer, a liteServer.error (with its code), a
 * timeout, or a network failure when the connection drops; a dropped connection is never reused.
 */
import { randomBytes } from "node:crypto"
import { ADNLClientTCP } from "adnl"
import { Codecs, Functions } from "ton-lite-client/dist/schema.js"
import { type TLFunction, TLReadBuffer, TLWriteBuffer } from "ton-tl"

export interface LiteserverAddress {
  readonly host: string
  readonly port: number
  /** The server's ed25519 public key (32 bytes). */
  readonly publicKey: Buffer
}

export const addressText = (a: LiteserverAddress): string => `${a.host}:${a.port}`

export type LiteFailureKind = "timeout" | "network" | "server" | "malformed"

/** How a query failed; `code` is the liteServer.error code when the server answered with one. */
export class LiteQueryError extends Error {
  constructor(
    readonly kind: LiteFailureKind,
    message: string,
    readonly code?: number
  ) {
    super(message)
  }
}

const LITE_ERROR = 0xbba9e148 | 0

interface Pending {
  readonly resolve: (b: Buffer) => void
  readonly reject: (e: LiteQueryError) => void
  readonly timer: NodeJS.Timeout
}

export class LiteConnection {
  private readonly client: ADNLClientTCP
  private readonly pending = new Map<string, Pending>()
  private state: "connecting" | "ready" | "closed" = "connecting"
  readonly ready: Promise<void>

  constructor(
    readonly address: LiteserverAddress,
    connectTimeoutMs: number,
    private readonly onDown: () => void = () => {}
  ) {
    this.client = new ADNLClientTCP(`tcp://${address.host}:${address.port}`, address.publicKey)
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          new LiteQueryError("timeout", `no ADNL handshake with ${addressText(address)} in ${connectTimeoutMs} ms`)
        )
        this.close()
      }, connectTimeoutMs)
      this.client.on("ready", () => {
        clearTimeout(timer)
        if (this.state === "connecting") this.state = "ready"
        resolve()
      })
      const down = (why: string) => {
        clearTimeout(timer)
        reject(new LiteQueryError("network", `${addressText(address)}: ${why}`))
        this.shutdown(why)
      }
      this.client.on("close", () => down("connection closed"))
      this.client.on("error", (e: Error) => down(e.message))
    })
    // a failed handshake is reported through `ready` and every query; nobody may be awaiting it yet
    this.ready.catch(() => {})
    this.client.on("data", (data: Buffer) => this.onData(data))
    this.client.connect().catch((e: unknown) => {
      this.client.emit("error", e instanceof Error ? e : new Error(String(e)))
    })
  }

  get isOpen(): boolean {
    return this.state !== "closed"
  }

  private onData(data: Buffer): void {
    let answer
    try {
      answer = Codecs.adnl_Message.decode(new TLReadBuffer(data))
    } catch {
      return
    }
    if (answer.kind !== "adnl.message.answer") return
    const key = answer.queryId.toString("hex")
    const p = this.pending.get(key)
    if (p === undefined) return
    this.pending.delete(key)
    clearTimeout(p.timer)
    p.resolve(answer.answer)
  }

  private shutdown(why: string): void {
    if (this.state === "closed") return
    this.state = "closed"
    for (const [, p] of this.pending) {
      clearTimeout(p.timer)
      p.reject(new LiteQueryError("network", `${addressText(this.address)}: ${why}`))
    }
    this.pending.clear()
    this.onDown()
  }

  /** Sends one lite API query; `awaitSeqno` prefixes liteServer.waitMasterchainSeqno as the protocol allows. */
  async query<REQ, RES>(f: TLFunction<REQ, RES>, req: REQ, timeoutMs: number): Promise<RES> {
    await this.ready
    if (this.state !== "ready") throw new LiteQueryError("network", `${addressText(this.address)}: connection closed`)
    const id = randomBytes(32)
    const body = new TLWriteBuffer()
    f.encodeRequest(req, body)
    const wrapped = new TLWriteBuffer()
    Functions.liteServer_query.encodeRequest({ kind: "liteServer.query", data: body.build() }, wrapped)
    const packet = new TLWriteBuffer()
    Codecs.adnl_Message.encode({ kind: "adnl.message.query", queryId: id, query: wrapped.build() }, packet)
    const raw = await new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id.toString("hex"))
        reject(new LiteQueryError("timeout", `${addressText(this.address)}: no answer in ${timeoutMs} ms`))
      }, timeoutMs)
      this.pending.set(id.toString("hex"), { resolve, reject, timer })
      this.client.write(packet.build())
    })
    if (raw.length >= 4 && raw.readInt32LE(0) === LITE_ERROR) {
      const e = Codecs.liteServer_Error.decode(new TLReadBuffer(raw))
      throw new LiteQueryError(
        "server",
        `${addressText(this.address)}: liteServer.error ${e.code}: ${e.message}`,
        e.code
      )
    }
    try {
      return f.decodeResponse(new TLReadBuffer(raw))
    } catch (e) {
      throw new LiteQueryError(
        "malformed",
        `${addressText(this.address)}: undecodable answer: ${e instanceof Error ? e.message : String(e)}`
      )
    }
  }

  close(): void {
    if (this.state === "closed") return
    this.shutdown("closed by the client")
    // the library's end() does nothing before its handshake completes; the socket itself always closes
    ;(this.client as unknown as { socket: { destroy: () => void } }).socket.destroy()
  }
}
