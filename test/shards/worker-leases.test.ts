// Background tasks one instance at a time per database (issue #25; src/workers/taskLease.ts,
// migrations/0026_worker_leases.sql): two instances with their workers and sweepers
// running on one database (and so, with shards, on each shard). Only one of them runs
// each task's passes at a time; when it stops, it gives its leases up and the other
// takes over at once; when it dies without giving them up, the other takes over once
// the lease has run out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeService, sleep, startService, until } from '../bookings/helpers.js';
import type { TestService } from '../support/service.js';
import { leaseOf, takeLease } from '../../src/db/workerLeases.js';
import { TaskLease } from '../../src/workers/taskLease.js';

const LEASE_MS = 1000;
let one: TestService | undefined;
let two: TestService | undefined;

beforeAll(async () => {
  one = await startService({ workers: true, config: { workerLeaseMs: LEASE_MS, workerIntervalMs: 50 } });
  two = await startService({ workers: true, config: { workerLeaseMs: LEASE_MS, workerIntervalMs: 50, databaseUrl: one.service.ctx.config.databaseUrl } });
}, 120_000);

afterAll(async () => {
  await closeService(two);
  await closeService(one);
});

/** Passes run per task of each instance's workers, from now on. */
function counter(t: TestService) {
  const at = new Map([...t.service.workers.passes].map(([task, c]) => [task, c.ran]));
  return (task: string) => t.service.workers.passes.get(task)!.ran - at.get(task)!;
}

const TASKS = ['reconcile', 'tickets', 'refunds', 'webhooks', 'waitlist-offers'];

describe('worker leases', () => {
  it('runs each task on one instance at a time; a stopped instance hands over at once', async () => {
    const db = one!.service.ctx.db;
    // Both have run for a while: each task is leased to one of them.
    await sleep(300);
    const ranOne = counter(one!);
    const ranTwo = counter(two!);
    await sleep(1500);
    const holders = new Map<string, string>();
    for (const task of TASKS) {
      const lease = await leaseOf(db, task);
      expect(lease, task).not.toBeNull();
      holders.set(task, lease!.holder);
      const [mine, other] = lease!.holder === one!.service.workers.holder ? [ranOne, ranTwo] : [ranTwo, ranOne];
      // Both loops tried every 50 ms; only the holder ran passes.
      expect(mine(task), task).toBeGreaterThan(0);
      expect(other(task), task).toBe(0);
    }
    expect((await leaseOf(db, 'sweeper'))?.holder).toMatch(/:/);

    // The holder of the reconciler stops its workers: the other takes it over within a few passes, not a lease time.
    const holder = holders.get('reconcile') === one!.service.workers.holder ? one! : two!;
    const other = holder === one ? two! : one!;
    const before = counter(other);
    const stopped = Date.now();
    await holder.service.workers.stop();
    await until('the other instance reconciling', async () => before('reconcile') > 0, 5000, 10);
    expect(Date.now() - stopped).toBeLessThan(LEASE_MS);
    // The other tasks follow at their own next pass (webhooks every fourth interval).
    const heldByOther = async () => (await Promise.all(TASKS.map((t) => leaseOf(db, t)))).every((l) => l?.holder === other.service.workers.holder);
    await until('the other instance holding every task', heldByOther, 5000, 10);
    for (const task of TASKS) expect((await leaseOf(db, task))?.holder, task).toBe(other.service.workers.holder);
    holder.service.workers.start();
  });

  it("takes a dead holder's task once its lease has run out, and not before", async () => {
    const db = one!.service.ctx.db;
    const task = `test-task-${Date.now()}`;
    // A holder that took the lease and died (never renews, never releases).
    expect(await takeLease(db, task, 'dead-instance', LEASE_MS)).toBe(true);
    const alive = new TaskLease(db, task, 'live-instance', LEASE_MS);
    let passes = 0;
    const started = Date.now();
    expect(await alive.run(async () => { passes++; }, true)).toBe(false);
    await until('the lease taken over', async () => alive.run(async () => { passes++; }, true), 3 * LEASE_MS, 50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(LEASE_MS - 100);
    expect(passes).toBe(1);
    // A pass longer than the lease keeps it: renewed while it runs, so nobody else takes it meanwhile.
    let intruded = false;
    await alive.run(async () => {
      await sleep(2 * LEASE_MS);
      intruded = await takeLease(db, task, 'dead-instance', LEASE_MS);
    }, false);
    expect(intruded).toBe(false);
    // Released after a pass run by hand (keep false): another takes it at once.
    expect(await takeLease(db, task, 'another-instance', LEASE_MS)).toBe(true);
  });
});
