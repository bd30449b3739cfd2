/**
 * Freeing a buffer's bytes when the program knows it is done with them, rather than when the garbage collector finds
 * its object dead. A Buffer's bytes live outside the JS heap and go only when the small object holding them is
 * collected: one that lived long enough to be promoted (a bundle's records, waiting in the prefetch queue and then for
 * their Kafka transaction) is collected at the next full collection, and V8 starts one for external memory only after
 * it grew by ~64 MB. So a process that moves megabytes through such buffers carries tens of megabytes of dead bytes.
 * Moving the bytes out of the buffer (a transfer, as `postMessage` does) to an object nobody keeps hands them to the
 * young generation's next scavenge, milliseconds later, and leaves the buffer empty.
 */

/**
 * Empties `view`'s ArrayBuffer and lets its bytes go at the next scavenge, when the view is the whole of a buffer of
 * its own (not a slice of Node's shared pool, nor of a larger buffer, nor shared memory). Every other view of that
 * ArrayBuffer reads as empty afterwards: only for bytes nothing will read again. True when it released them.
 */
export const releaseBytes = (view: Uint8Array | null | undefined): boolean => {
  if (view === null || view === undefined) return false
  const ab = view.buffer
  if (!(ab instanceof ArrayBuffer) || ab.byteLength === 0) return false
  if (view.byteOffset !== 0 || view.byteLength !== ab.byteLength) return false
  structuredClone(ab, { transfer: [ab] })
  return true
}
