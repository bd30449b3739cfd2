/**
 * Liveness of the pipeline's stages as the health endpoint reports it. A stage is healthy while it reports within
 * its deadline; an idle stage (caught up with the head) reports too, so silence always means stuck or dead.
 */
import { Context, Layer } from "effect"

export interface StageStatus {
  readonly ok: boolean
  readonly detail: string
  readonly atMs: number
}

export class HealthState {
  private readonly stages = new Map<string, StageStatus & { readonly deadlineMs: number }>()

  report(stage: string, ok: boolean, detail: string, deadlineMs = 60_000, atMs = Date.now()): void {
    this.stages.set(stage, { ok, detail, atMs, deadlineMs })
  }

  snapshot(nowMs = Date.now()): { readonly ok: boolean; readonly stages: Record<string, StageStatus & { stale: boolean }> } {
    const stages: Record<string, StageStatus & { stale: boolean }> = {}
    let ok = true
    for (const [name, s] of this.stages) {
      const stale = nowMs - s.atMs > s.deadlineMs
      if (!s.ok || stale) ok = false
      stages[name] = { ok: s.ok, detail: s.detail, atMs: s.atMs, stale }
    }
    return { ok, stages }
  }
}

export class Health extends Context.Tag("Health")<Health, HealthState>() {
  static readonly layer = Layer.sync(Health, () => new HealthState())
}
