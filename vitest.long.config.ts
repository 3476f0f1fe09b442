import { defineConfig } from 'vitest/config';

// The long runs: kill -9 loops and 60,000-seat moves between clusters of their own,
// a minute or more each on two cores. `npm test` leaves them out (it stays a
// quarter-hour run); `npm run test:long` runs them, and so does `.ci/run` after
// `npm test`.
export const LONG_TESTS = [
  'test/resilience/crash.test.ts',
  'test/resilience/show-cancel-crash.test.ts',
  'test/resilience/waitlist-crash.test.ts',
  'test/db/show-move.test.ts',
  'test/shards/live-move.test.ts',
];

export default defineConfig({
  test: {
    include: LONG_TESTS,
    setupFiles: ['test/support/leakCheck.ts'],
    pool: 'forks',
    maxWorkers: 2,
    isolate: false,
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
