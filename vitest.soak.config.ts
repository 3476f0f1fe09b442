import { defineConfig } from 'vitest/config';

// The stays-up soak (test/resilience/stays-up.test.ts) alone: it times the service's
// answers (/healthz p99 under 100 ms, every request within 2 s), which another test
// file sharing the two cores would make a measure of that file instead. `npm test`
// runs it after the rest of the suite.
export default defineConfig({
  test: {
    include: ['test/resilience/stays-up.test.ts'],
    setupFiles: ['test/support/leakCheck.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 180_000,
    hookTimeout: 300_000,
  },
});
