import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The browser tests (test/web) need the built web app.
    globalSetup: ['test/support/webBuild.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // Each worker keeps its modules from one test file to the next: importing the
    // service afresh for every file took 124–142 s summed (about a minute of the
    // suite's wall time on 2 cores). Nothing in src/ keeps per-process state a test
    // depends on (every service, pool and registry is made by the test that uses it),
    // and no test mocks a module or sets process.env.
    isolate: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
