// The benches share the rehearsal's cleanup registry (src/rehearsal/cleanup.ts).
export { cleanup, onCleanup, runBenchmark } from '../../src/rehearsal/cleanup.js';
