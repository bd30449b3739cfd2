// Where the producer's main thread allocates bytes outside the JS heap, counted by site: a module preloaded into the
// producer alone by bench:ingest, e.g.
//   npx tsx bench/ingest.ts --gen-dir /tmp/data/chain50k --solo false --source liteserver \
//     --producer-node-flags="--import=$PWD/bench/producerExternalSites.mjs"
// Every second it writes /tmp/producer-external-sites-<pid>.json (set PRODUCER_EXTERNAL_SITES_DIR for another
// directory): bytes delivered by each socket's 'data' events (by remote port: the liteserver's and Kafka's), bytes
// out of node:crypto's decipher (the ADNL decryption), Buffer.allocUnsafe calls of 64 kB and more (Buffer.concat
// goes through it: joined ADNL packets, filled bundle records, produce requests), and the bytes moved in from the
// decode workers (their records and bundle records), beside process.memoryUsage(). Divide by the run's transactions
// for bytes per transaction. Counting only: it changes no bytes, and the decode workers load it without effect.
import { isMainThread, Worker } from "node:worker_threads"
import net from "node:net"
import crypto from "node:crypto"
import fs from "node:fs"
if (isMainThread) {
  const c = { sockData: {}, decipherOut: 0, decipherCalls: 0, allocUnsafeBig: 0, allocUnsafeBigN: 0, workerIn: 0, workerInN: 0 }
  const emit = net.Socket.prototype.emit
  net.Socket.prototype.emit = function (ev, d, ...rest) {
    if (ev === "data" && d && d.length !== undefined) {
      const k = String(this.remotePort)
      c.sockData[k] = (c.sockData[k] ?? 0) + d.length
    }
    return emit.call(this, ev, d, ...rest)
  }
  const dc = crypto.createDecipheriv("aes-256-ctr", Buffer.alloc(32), Buffer.alloc(16))
  const proto = Object.getPrototypeOf(dc)
  const upd = proto.update
  proto.update = function (...a) {
    const out = upd.apply(this, a)
    c.decipherOut += out.length
    c.decipherCalls++
    return out
  }
  const au = Buffer.allocUnsafe
  Buffer.allocUnsafe = function (n) {
    if (n >= 65536) { c.allocUnsafeBig += n; c.allocUnsafeBigN++ }
    return au.call(Buffer, n)
  }
  const wemit = Worker.prototype.emit
  Worker.prototype.emit = function (ev, m, ...rest) {
    if (ev === "message" && m && m.prepared) {
      c.workerInN++
      c.workerIn += (m.prepared.drafts?.bytes?.byteLength ?? 0) + (m.prepared.bundle?.value?.byteLength ?? 0)
    }
    return wemit.call(this, ev, m, ...rest)
  }
  const file = `${process.env.PRODUCER_EXTERNAL_SITES_DIR ?? "/tmp"}/producer-external-sites-${process.pid}.json`
  setInterval(() => fs.writeFileSync(file, JSON.stringify({ ...c, mem: process.memoryUsage() })), 1000).unref()
}
