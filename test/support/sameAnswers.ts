/**
 * Asking several apps the same v3 page URLs and comparing their answers byte for byte against one reference app.
 */
import type { FastifyInstance } from "fastify"
import { expect } from "vitest"

/** The two v3 page endpoints of each masterchain block, with each of `queries` appended. */
export const v3PageUrls = (seqnos: ReadonlyArray<number>, queries: ReadonlyArray<string>): Array<string> =>
  seqnos.flatMap((seqno) =>
    queries.flatMap((q) =>
      ["masterchainBlockShardState", "transactionsByMasterchainBlock"].map(
        (path) => `/api/v3/${path}?seqno=${seqno}${q}`
      )
    )
  )

/** Every app answers every URL with the reference's status and body. */
export const expectSameAnswers = async (
  urls: ReadonlyArray<string>,
  reference: FastifyInstance,
  others: ReadonlyArray<FastifyInstance>
): Promise<void> => {
  for (const url of urls) {
    const [want, ...got] = await Promise.all([reference, ...others].map((app) => app.inject(url)))
    for (const g of got) {
      expect(g.statusCode, url).toBe(want!.statusCode)
      expect(g.body, url).toBe(want!.body)
    }
  }
}
