// The generated chain the ingest benchmarks share (tools/fake/mixedChain.ts; the differential tests use it too).
export { mixedChain as benchChain } from "../../tools/fake/mixedChain.js"
