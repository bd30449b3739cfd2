import { describe, expect, it } from "vitest"
import { SharedStatements } from "../../../src/store/SharedStatements.js"

/** A runner whose statements finish when the test says, recording each group it was given. */
const gated = (fail: (q: number) => boolean = () => false) => {
  const groups: Array<ReadonlyArray<number>> = []
  const gates: Array<() => void> = []
  const run = (group: ReadonlyArray<number>): Promise<ReadonlyArray<string>> => {
    groups.push(group)
    return new Promise((resolve, reject) =>
      gates.push(() => {
        const bad = group.find(fail)
        if (bad !== undefined) reject(new Error(`refused ${bad} in [${group.join(",")}]`))
        else resolve(group.map((q) => `answer ${q}`))
      })
    )
  }
  /** Lets every statement started so far finish, then lets the ones they started run. */
  const release = async () => {
    for (const open of gates.splice(0)) open()
    await new Promise((r) => setTimeout(r, 0))
  }
  return { run, groups, release }
}

describe("SharedStatements", () => {
  it("sends a lone request at once, alone", async () => {
    const g = gated()
    const shared = new SharedStatements(g.run, { inFlight: 1, count: 16, keys: 100 })
    const a = shared.submit(1)
    expect(g.groups).toEqual([[1]])
    await g.release()
    expect(await a).toBe("answer 1")
  })

  it("shares one statement among the requests arriving while one runs, each taking back its own answer", async () => {
    const g = gated()
    const shared = new SharedStatements(g.run, { inFlight: 1, count: 16, keys: 100 })
    const answers = [1, 2, 3, 4].map((q) => shared.submit(q))
    expect(g.groups).toEqual([[1]])
    await g.release()
    expect(g.groups).toEqual([[1], [2, 3, 4]])
    await g.release()
    expect(await Promise.all(answers)).toEqual(["answer 1", "answer 2", "answer 3", "answer 4"])
  })

  it("bounds a group by count, by keys and by what may join its first request", async () => {
    const g = gated()
    const keysOf = (q: number) => (q >= 100 ? 50 : 1)
    const joins = (group: ReadonlyArray<number>, q: number) => group[0]! % 2 === q % 2
    const shared = new SharedStatements(g.run, { inFlight: 1, count: 3, keys: 60 }, keysOf, joins)
    const answers = [0, 2, 4, 6, 8, 1, 3, 100, 102].map((q) => shared.submit(q))
    for (let i = 0; i < 6; i++) await g.release()
    // count 3; odd ones wait for a group of their own; 100 and 102 (50 keys each) do not fit one group of 60 keys
    expect(g.groups).toEqual([[0], [2, 4, 6], [8, 100], [1, 3], [102]])
    expect(await Promise.all(answers)).toEqual([0, 2, 4, 6, 8, 1, 3, 100, 102].map((q) => `answer ${q}`))
  })

  it("asks `joins` with the whole group taken so far, so a request may wait because of any member", async () => {
    const g = gated()
    const asked: Array<[ReadonlyArray<number>, number]> = []
    // requests are (key, shape) as key * 10 + shape: a key may appear in a group in one shape only, repeats allowed
    const joins = (group: ReadonlyArray<number>, q: number) => {
      asked.push([[...group], q])
      return group.every((m) => Math.floor(m / 10) !== Math.floor(q / 10) || m === q)
    }
    const shared = new SharedStatements(g.run, { inFlight: 1, count: 16, keys: 100 }, undefined, joins)
    const qs = [0, 11, 21, 12, 11, 31, 22, 12]
    const answers = qs.map((q) => shared.submit(q))
    for (let i = 0; i < 4; i++) await g.release()
    // 12 waits because of 11 (the group's second request, not its first), 22 because of 21; 11 twice shares one
    expect(g.groups).toEqual([[0], [11, 21, 11, 31], [12, 22, 12]])
    expect(asked).toContainEqual([[11, 21], 12])
    expect(await Promise.all(answers)).toEqual(qs.map((q) => `answer ${q}`))
  })

  it("runs `inFlight` statements at once before requests wait", async () => {
    const g = gated()
    const shared = new SharedStatements(g.run, { inFlight: 2, count: 16, keys: 100 })
    const answers = [1, 2, 3, 4].map((q) => shared.submit(q))
    expect(g.groups).toEqual([[1], [2]])
    await g.release()
    expect(g.groups).toEqual([[1], [2], [3, 4]])
    await g.release()
    expect(await Promise.all(answers)).toHaveLength(4)
  })

  it("sends a statement beside a running one only once `extraAfter` requests wait, as one group", async () => {
    const g = gated()
    const shared = new SharedStatements(g.run, { inFlight: 2, count: 16, keys: 100, extraAfter: 3 })
    const answers = [1, 2, 3].map((q) => shared.submit(q))
    // 1 goes out alone at once; 2 and 3 are fewer than three waiting, so they wait for a statement
    expect(g.groups).toEqual([[1]])
    answers.push(shared.submit(4))
    // the third waiting request sends the second statement at once, all three in it
    expect(g.groups).toEqual([[1], [2, 3, 4]])
    answers.push(shared.submit(5), shared.submit(6), shared.submit(7), shared.submit(8))
    // two statements run: the rest wait for one to finish, however many they are
    expect(g.groups).toEqual([[1], [2, 3, 4]])
    await g.release()
    // both finished: the first statement goes out as before, with everything waiting
    expect(g.groups).toEqual([[1], [2, 3, 4], [5, 6, 7, 8]])
    answers.push(shared.submit(9))
    // a lone waiter beside a running statement waits for it
    expect(g.groups).toHaveLength(3)
    await g.release()
    expect(g.groups).toEqual([[1], [2, 3, 4], [5, 6, 7, 8], [9]])
    await g.release()
    expect(await Promise.all(answers)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9].map((q) => `answer ${q}`))
  })

  it("fails only the requests a failed statement cannot answer, each with the error it gets alone", async () => {
    const g = gated((q) => q === 3)
    const shared = new SharedStatements(g.run, { inFlight: 1, count: 16, keys: 100 })
    const answers = [1, 2, 3, 4].map((q) => shared.submit(q).catch((e: Error) => e.message))
    for (let i = 0; i < 4; i++) await g.release()
    // the group [2, 3, 4] fails, then each of its requests runs alone
    expect(g.groups).toEqual([[1], [2, 3, 4], [2], [3], [4]])
    expect(await Promise.all(answers)).toEqual(["answer 1", "answer 2", "refused 3 in [3]", "answer 4"])
  })

  it("answers a runner that answers a group short with the requests' own statements", async () => {
    const groups: Array<ReadonlyArray<number>> = []
    const shared = new SharedStatements(
      async (group: ReadonlyArray<number>) => {
        groups.push(group)
        await new Promise((r) => setTimeout(r, 1))
        return group.length > 1 ? group.slice(1).map(String) : group.map(String)
      },
      { inFlight: 1, count: 16, keys: 100 }
    )
    expect(await Promise.all([1, 2, 3].map((q) => shared.submit(q)))).toEqual(["1", "2", "3"])
    expect(groups).toEqual([[1], [2, 3], [2], [3]])
  })
})
