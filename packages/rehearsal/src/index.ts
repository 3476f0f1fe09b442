// @boxoffice/rehearsal: the on-sale rehearsal (`npm run onsale`, docs/rehearsal.md)
// and the parts of it the benchmarks share (child processes, clean-up, latencies).
// It talks to boxoffice only over its public HTTP API, and starts it, when asked
// to, as `npm start` does: the built service's command (dist/src/main.js serve).
export { rehearse, type RunResult } from './run.js';
export { parseOptions, USAGE, type Options } from './options.js';
export { headline, type Headline } from './figures.js';
export { audit, foreignLine, type AuditResult, type Books } from './audit.js';
export { readBooks } from './auditRead.js';
export { cleanup, onCleanup, runBenchmark } from './cleanup.js';
export { freePort, machineBusySeconds, processCpuSeconds, REPO_ROOT, startChild, type Child, type ChildOptions } from './child.js';
export { Latencies, percentiles, type Percentiles } from './latencies.js';
export { rowName } from './setup.js';
export { BuyerHttp } from './http.js';
export { Recorder } from './recorder.js';
