/**
 * Statements shared by concurrent reads of one kind: a request finding no statement of its kind running goes out at
 * once (a lone request waits for nothing); the requests arriving while they run wait, and go out together as ONE
 * statement when one finishes, or beside the running ones (fewer than `inFlight`) once `extraAfter` of them wait, as many as `count` and `keys` allow (and `joins` accepts beside the
 * requests the group holds so far). Invariant: every request gets what `run([itself])` answers: the runner answers a group by index,
 * and a group whose statement fails runs each of its requests alone, so each gets its own answer or its own error.
 */

export interface SharingLimits {
  /** Statements of the kind running at once. */
  readonly inFlight: number
  /** Requests per statement (1: every request runs alone). */
  readonly count: number
  /** Keys per statement (a request with more than this still runs, alone). */
  readonly keys: number
  /**
   * Requests waiting before a statement goes out beside one already running (undefined or 1: as soon as one waits),
   * so a second statement of the kind runs on the engine's other core only with a group worth its fixed cost.
   */
  readonly extraAfter?: number
}

interface Waiting<Q, A> {
  readonly q: Q
  readonly resolve: (a: A) => void
  readonly reject: (e: unknown) => void
}

export class SharedStatements<Q, A> {
  private readonly waiting: Array<Waiting<Q, A>> = []
  private running = 0

  constructor(
    /** Answers a group's requests in its order (one statement for all of them). */
    private readonly run: (group: ReadonlyArray<Q>) => Promise<ReadonlyArray<A>>,
    private readonly limits: SharingLimits,
    private readonly keysOf: (q: Q) => number = () => 1,
    /** Whether `q` may share the statement of a group holding `group` so far (its first request first). */
    private readonly joins: (group: ReadonlyArray<Q>, q: Q) => boolean = () => true
  ) {}

  submit(q: Q): Promise<A> {
    return new Promise<A>((resolve, reject) => {
      this.waiting.push({ q, resolve, reject })
      this.launch()
    })
  }

  private launch(): void {
    while (
      this.running < this.limits.inFlight &&
      this.waiting.length >= (this.running === 0 ? 1 : Math.max(1, this.limits.extraAfter ?? 1))
    ) {
      const group = this.take()
      this.running++
      void this.serve(group).finally(() => {
        this.running--
        this.launch()
      })
    }
  }

  /** The first waiting request and, in arrival order, the waiting ones that fit beside it. */
  private take(): Array<Waiting<Q, A>> {
    const first = this.waiting.shift()!
    const group = [first]
    const qs = [first.q]
    let keys = this.keysOf(first.q)
    for (let i = 0; i < this.waiting.length && group.length < this.limits.count;) {
      const w = this.waiting[i]!
      const k = this.keysOf(w.q)
      if (keys + k <= this.limits.keys && this.joins(qs, w.q)) {
        group.push(w)
        qs.push(w.q)
        keys += k
        this.waiting.splice(i, 1)
      } else i++
    }
    return group
  }

  private async serve(group: ReadonlyArray<Waiting<Q, A>>): Promise<void> {
    try {
      const answers = await this.run(group.map((w) => w.q))
      if (answers.length !== group.length) throw new Error(`${answers.length} answers for ${group.length} requests`)
      group.forEach((w, i) => w.resolve(answers[i]!))
    } catch (e) {
      if (group.length === 1) return group[0]!.reject(e)
      await Promise.all(group.map((w) => this.run([w.q]).then((a) => w.resolve(a[0]!), w.reject)))
    }
  }
}
