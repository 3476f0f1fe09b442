import { defineConfig } from 'vitest/config';
import { LONG_TESTS } from './vitest.long.config.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    // Timed against a budget (/healthz p99 under 100 ms): run alone afterwards, with
    // nothing else on the two cores (vitest.soak.config.ts; `npm test` runs both).
    // The long runs (kill -9 loops, 60,000-seat moves) are `npm run test:long`'s (vitest.long.config.ts).
    exclude: ['test/resilience/stays-up.test.ts', ...LONG_TESTS, '**/node_modules/**'],
    // The browser tests (test/web) need the built web app.
    globalSetup: ['test/support/webBuild.ts'],
    // Fails a test file that leaves timers, sockets, servers, child processes or
    // process listeners behind: the next file in its worker would inherit them.
    setupFiles: ['test/support/leakCheck.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // Each worker keeps its modules from one test file to the next: importing the
    // service afresh for every file took 124–142 s summed (about a minute of the
    // suite's wall time on 2 cores). What src/ keeps per process is memos of pure
    // results (prepared statements' names, a chosen content coding, a dummy password
    // hash) and the rehearsal's undo steps (packages/rehearsal/src/cleanup.ts, which runs again
    // for steps registered after a clean-up); every service, pool and registry is made
    // by the test that uses it, and closed by it (test/support/leakCheck.ts). No test
    // may mock a module or set process.env (test/config/shared-modules.test.ts).
    isolate: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
