// Idle background work costs a database little (src/loop.ts idleMaxMs): a worker
// whose passes find nothing to do doubles its pause up to WORKER_IDLE_MAX_MS, and one
// pass that finds work brings it back to WORKER_INTERVAL_MS. On a shard reached
// across a network through a small pool, every idle look was a round trip holding
// one of the shard's connections (bench:shards: ~20 a second per shard before).
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Loop } from '../../src/loop.js';
import { closeService, confirmedBooking, sleep, startService, waitForTickets } from '../bookings/helpers.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import type { TestService } from '../support/service.js';

const quiet = { warn: () => {} };

describe('a loop with an idle pause', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('doubles the pause while passes find nothing, up to the cap, and goes back to the interval after one that did something', async () => {
    vi.useFakeTimers();
    const starts: number[] = [];
    const work = [0, 0, 0, 0, 0, 0, 3, 0, 0, 1, 1];
    const loop = new Loop('tickets', async () => {
      starts.push(Date.now());
      return work.shift() ?? 0;
    }, 100, quiet, { idleMaxMs: 800 });
    loop.start();
    await vi.advanceTimersByTimeAsync(8000);
    await loop.stop();
    const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
    // Passes 1–6 find nothing: 200, 400, 800, 800, 800, 800 (capped); pass 7 works: 100;
    // 8, 9 idle: 200, 400; 10 and 11 work: 100, 100; then idle again: 200, 400.
    expect(gaps.slice(0, 13)).toEqual([200, 400, 800, 800, 800, 800, 100, 200, 400, 100, 100, 200, 400]);
  });

  it('without idleMaxMs keeps its interval whatever the passes find', async () => {
    vi.useFakeTimers();
    const starts: number[] = [];
    const loop = new Loop('placements', async () => { starts.push(Date.now()); return 0; }, 100, quiet);
    loop.start();
    await vi.advanceTimersByTimeAsync(1000);
    await loop.stop();
    const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
    expect(new Set(gaps)).toEqual(new Set([100]));
  });

  it('a failing pass keeps the pause it had (the next retries at that pace)', async () => {
    vi.useFakeTimers();
    const starts: number[] = [];
    const outcomes: (number | Error)[] = [0, 0, new Error('database away'), new Error('database away'), 2];
    const loop = new Loop('refunds', async () => {
      starts.push(Date.now());
      const o = outcomes.shift() ?? 0;
      if (o instanceof Error) throw o;
      return o;
    }, 100, quiet, { idleMaxMs: 10_000 });
    loop.start();
    await vi.advanceTimersByTimeAsync(3000);
    await loop.stop();
    const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
    expect(gaps.slice(0, 5)).toEqual([200, 400, 400, 400, 100]);
  });
});

describe('idle workers of a service on the real database', () => {
  let t: TestService | undefined;
  let buyer: Buyer;

  beforeAll(async () => {
    t = await startService({ workers: true, payments: {}, config: { workerIntervalMs: 50, workerIdleMaxMs: 1000 } });
    [buyer] = await registerBuyers(t, 1) as [Buyer];
  }, 60_000);

  afterAll(async () => {
    await closeService(t);
  });

  /** Statements the tickets worker sent, per /metrics. */
  const ticketTrips = async () => {
    const text = (await t!.http.get('/metrics')).text;
    return Number(/^boxoffice_db_round_trips_total\{origin="tickets"\} (\S+)$/m.exec(text)?.[1] ?? 0);
  };

  it('look for work about once a second when there is none, and still issue a new booking\'s tickets within the longest pause', async () => {
    // Nothing to do: after the pauses have grown, the tickets worker looks about once a
    // second (at its 50 ms interval it would be 20 statements a second).
    await sleep(2000);
    const before = await ticketTrips();
    await sleep(3000);
    const idleTrips = (await ticketTrips()) - before;
    expect(idleTrips).toBeGreaterThan(0);
    expect(idleTrips).toBeLessThanOrEqual(6);

    // Work arrives: a booking's tickets come within the longest pause and a little, and the
    // passes that follow run at the interval again.
    const { showId } = await createShow(t!);
    const booked = Date.now();
    const booking = await confirmedBooking(t!, showId, ['A1', 'A2'], buyer.token);
    await waitForTickets(t!, booking.booking_id, 2, buyer.token);
    const tookMs = Date.now() - booked;
    expect(tookMs).toBeLessThan(3000);
    console.log(`idle: the tickets worker sent ${idleTrips} statements in 3 s (50 ms interval, 1 s cap); a booking's tickets came ${tookMs} ms after it was asked`);
  });
});
