/**
 * What this process's Kafka record-batch codecs did: CPU seconds and bytes either side, per direction. Kept apart
 * from the codecs themselves so that the metrics registry reads it without loading the native codec packages.
 */
export interface CodecStats {
  compressSeconds: number
  compressInBytes: number
  compressOutBytes: number
  decompressSeconds: number
  decompressInBytes: number
  decompressOutBytes: number
}

export const codecStats: CodecStats = {
  compressSeconds: 0,
  compressInBytes: 0,
  compressOutBytes: 0,
  decompressSeconds: 0,
  decompressInBytes: 0,
  decompressOutBytes: 0
}
