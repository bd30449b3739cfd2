// What decoding message bodies costs by kind, in process, over a generated chain: every distinct body (in_msg and
// out_msgs, by cell hash) of its masterchain blocks' transactions decoded as the producer's decode worker decodes it
// (`decodeBodyBoc`, then the text), round after round; the last round is timed body by body. Prints the total per
// transaction of the chain, then per kind (the message's type, the opcode's name or the layout the decoder read:
// wallets' external bodies carry a signature where an opcode would be) the bodies' count, microseconds each, the
// share of the total and the text's characters each. Numbers are printed, never asserted.
// Usage: npx tsx bench/bodyKinds.ts --gen-dir DIR [--mc 300 (0: all)] [--rounds 3] [--top 20]
import { Either } from "effect"
import { parseCli } from "../src/infra/cli.js"
import { assembleBlockFiles } from "../src/producer/blockFiles.js"
import { decodeBodyBoc, opcodeName } from "../src/ton/bodies/decode.js"
import { installFastCellHash } from "../src/ton/fastHash.js"
import { goJsonStringify } from "../src/ton/v3.js"
import { generatedBlockFileBundles } from "./lib/chain.js"

const USAGE = `Usage: npx tsx bench/bodyKinds.ts --gen-dir DIR [--mc 300] [--rounds 3] [--top 20]
  Body decoding's cost per body kind over a generated chain's distinct bodies.`
const args = parseCli(
  {
    "gen-dir": { type: "string" },
    mc: { type: "string", default: "300" },
    rounds: { type: "string", default: "3" },
    top: { type: "string", default: "20" }
  },
  USAGE
)
if (args["gen-dir"] === undefined) {
  process.stderr.write(`${USAGE}\n`)
  process.exit(2)
}
const rounds = Math.max(1, Number(args.rounds))

interface Body {
  readonly boc: string
  readonly kind: string
}

const main = async () => {
  installFastCellHash()
  const { bundles, network } = await generatedBlockFileBundles(args["gen-dir"]!, Number(args.mc))
  const bodies = new Map<string, Body>()
  let txs = 0
  for (const files of bundles) {
    const assembled = assembleBlockFiles(files, network)
    if (Either.isLeft(assembled)) throw assembled.left
    for (const tx of assembled.right.bundle.transactions) {
      txs++
      for (const m of [tx.in_msg, ...tx.out_msgs]) {
        if (m === null || bodies.has(m.body.hash)) continue
        const name = m.opcode === null ? "(under 32 bits)" : (opcodeName(m.opcode) ?? "(no opcode name)")
        bodies.set(m.body.hash, { boc: m.body.boc, kind: `${m.type} ${name}` })
      }
    }
  }
  const byKind = new Map<string, { n: number; us: number; chars: number }>()
  let total = 0
  for (let round = 1; round <= rounds; round++) {
    for (const body of bodies.values()) {
      const t = process.hrtime.bigint()
      const decoded = decodeBodyBoc(body.boc)
      const text = goJsonStringify(decoded)
      const us = Number(process.hrtime.bigint() - t) / 1000
      if (round < rounds) continue
      // A wallet's external body has no opcode of its own: the layout it decoded as names it.
      const layout =
        body.kind.endsWith("(no opcode name)") && decoded !== null && typeof decoded === "object"
          ? ` -> ${String(decoded["@type"])}`
          : decoded === null
            ? " -> null"
            : ""
      const key = `${body.kind}${layout}`
      const e = byKind.get(key) ?? { n: 0, us: 0, chars: 0 }
      e.n++
      e.us += us
      e.chars += text.length
      byKind.set(key, e)
      total += us
    }
  }
  console.log(
    `${txs} transactions, ${bodies.size} distinct bodies: ${(total / 1000).toFixed(1)} ms in round ${rounds} = ` +
      `${(total / txs).toFixed(1)} us per transaction of the chain`
  )
  for (const [kind, e] of [...byKind].sort((a, b) => b[1].us - a[1].us).slice(0, Number(args.top))) {
    console.log(
      `  ${kind.padEnd(64)} ${String(e.n).padStart(6)} bodies ${(e.us / e.n).toFixed(1).padStart(9)} us each ` +
        `${((100 * e.us) / total).toFixed(1).padStart(5)}%  ${Math.round(e.chars / e.n)} chars`
    )
  }
}

void main()
