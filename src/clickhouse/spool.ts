/**
 * A table's insert body moved to a file as it is encoded, so that what the consumer holds for a batch is bounded by
 * bytes whatever the batch's size: an encoder hands its finished slices here once they reach `afterBytes` (at the
 * end of a row, never within one), and the insert reads the file followed by the slices still in memory. Without it a
 * batch's bodies (every table's, encoded before the first insert) were ~2x its Kafka values in memory at once:
 * 34-36 MB for a 16 MiB batch, ~53 MB for one busy masterchain block's bundle (BENCHMARKS.md). Invariant: the file's
 * bytes followed by `finish`'s tail are exactly the body the encoder wrote, in order; a spool file lives from its
 * first write to `remove`, which the sink calls after the insert whatever happened.
 */
import { closeSync, mkdirSync, openSync, readdirSync, rmSync, writeSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** Where an encoder's finished slices go once they reach `afterBytes` (ByteRowEncoder.spillTo, src/sink/encode.ts). */
export interface BodySpill {
  readonly afterBytes: number
  /** Appends the slices' bytes, in order, before it returns: the encoder writes over their chunks afterwards. */
  readonly write: (slices: ReadonlyArray<Buffer>) => void
}

/** An insert body whose bytes are all in a file. */
export interface BodyFile {
  readonly file: string
  readonly bytes: number
}

/**
 * Bytes an encoder keeps before its slices go to the spool file. The embedded engine reads every body of a megabyte
 * or more from a file anyway (fileInsert.ts FILE_INSERT_BYTES), so there the spool is the same write made earlier;
 * smaller bodies never leave memory.
 */
export const SPILL_BYTES = 1 << 20

/** A spool file could not be written (disk full, directory gone): the batch fails and is retried as any insert. */
export class SpoolWriteError extends Error {
  constructor(
    readonly file: string,
    cause: unknown
  ) {
    super(`writing the insert body's spool file ${file}: ${(cause as Error)?.message ?? String(cause)}`, { cause })
  }
}

export class SpoolFile implements BodySpill {
  private fd: number | undefined
  private created = false
  private written = 0

  constructor(
    readonly path: string,
    readonly afterBytes: number = SPILL_BYTES
  ) {}

  /** Bytes in the file so far. */
  get bytes(): number {
    return this.written
  }

  readonly write = (slices: ReadonlyArray<Buffer>): void => {
    try {
      if (this.fd === undefined) {
        if (this.created) throw new Error("the spool file was already finished")
        this.fd = openSync(this.path, "w")
        this.created = true
      }
      for (const s of slices) {
        let at = 0
        while (at < s.length) at += writeSync(this.fd, s, at, s.length - at)
        this.written += s.length
      }
    } catch (e) {
      throw new SpoolWriteError(this.path, e)
    }
  }

  /**
   * The whole body: the slices as they are when nothing was spooled, else the file with `tail` appended (the file is
   * then complete and closed).
   */
  finish(tail: ReadonlyArray<Buffer>): ReadonlyArray<Buffer> | BodyFile {
    if (!this.created) return tail
    this.write(tail)
    const fd = this.fd!
    this.fd = undefined
    try {
      closeSync(fd)
    } catch (e) {
      throw new SpoolWriteError(this.path, e)
    }
    return { file: this.path, bytes: this.written }
  }

  /** Closes and deletes the file, if there is one (idempotent). */
  remove(): void {
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd)
      } catch {
        // already closed by the OS is fine: the unlink below is what matters
      }
      this.fd = undefined
    }
    // A file left by a failed removal is the spool directory's to clear (emptied or swept at the next start).
    if (this.created) {
      try {
        rmSync(this.path, { force: true })
      } catch {
        // see above
      }
    }
    this.created = false
    this.written = 0
  }
}

const PROCESS_DIR_PREFIX = "ton-exporter-inserts-"

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * The directory of this process's spool files when no engine data directory holds them (a ClickHouse server):
 * `$TMPDIR/ton-exporter-inserts-<pid>`, made on first use; the directories of processes no longer running (a killed
 * consumer's leftovers) are removed then.
 */
export const processSpoolDir = (base: string = tmpdir()): string => {
  const dir = join(base, `${PROCESS_DIR_PREFIX}${process.pid}`)
  mkdirSync(dir, { recursive: true })
  for (const name of readdirSync(base)) {
    if (!name.startsWith(PROCESS_DIR_PREFIX)) continue
    const pid = Number(name.slice(PROCESS_DIR_PREFIX.length))
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || alive(pid)) continue
    rmSync(join(base, name), { recursive: true, force: true })
  }
  return dir
}

