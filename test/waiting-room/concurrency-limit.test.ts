// The purchase path's adaptive concurrency limit: pure behaviour on a fake
// workload, then over HTTP: beyond the limit an immediate 503 OVERLOADED with
// Retry-After while the seat database is stuck, never a slow answer.
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { ConcurrencyLimit } from '../../src/waiting-room/concurrencyLimit.js';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers } from '../support/catalog.js';
import { expectProblem } from '../support/problems.js';

/** Runs `rounds` rounds of `offered` requests at once, each taking `rttMs`; the limit after each round. */
function drive(limit: ConcurrencyLimit, rounds: number, offered: number, rttMs: number): number[] {
  const seen: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let taken = 0;
    for (let i = 0; i < offered; i++) if (limit.tryAcquire()) taken++;
    for (let i = 0; i < taken; i++) limit.release(rttMs, false);
    seen.push(limit.limit);
  }
  return seen;
}

describe('the adaptive concurrency limit', () => {
  it('grows while latency holds, falls when latency rises, and recovers', () => {
    const limit = new ConcurrencyLimit({ initial: 20, min: 5, max: 400 });
    const steady = drive(limit, 30, 500, 10);
    expect(steady.at(-1)).toBeGreaterThan(100);
    const before = limit.limit;
    const slowed = drive(limit, 5, 500, 80);
    expect(slowed.at(-1)!).toBeLessThan(before / 2);
    const recovered = drive(limit, 60, 500, 10);
    expect(recovered.at(-1)!).toBeGreaterThan(slowed.at(-1)! * 2);
    // Never outside its bounds.
    for (const l of [...steady, ...slowed, ...recovered]) {
      expect(l).toBeGreaterThanOrEqual(5);
      expect(l).toBeLessThanOrEqual(400);
    }
  });

  it('does not shrink for latency up to its target (the room\'s set point), and does beyond it', () => {
    const steady = () => {
      const l = new ConcurrencyLimit({ initial: 20, min: 5, max: 400 });
      drive(l, 30, 500, 10);
      return l;
    };
    const untargeted = steady();
    const targeted = steady();
    targeted.latencyTarget = () => 100;
    const before = targeted.limit;
    // Holds slowed to 80 ms, as the room steers them when it admits up to its set point.
    expect(drive(untargeted, 5, 500, 80).at(-1)!).toBeLessThan(before / 2);
    expect(drive(targeted, 5, 500, 80).at(-1)!).toBeGreaterThanOrEqual(before);
    // Past the target it is distress again.
    expect(drive(targeted, 5, 500, 400).at(-1)!).toBeLessThan(before / 2);
  });

  it('does not grow when the limit is not used', () => {
    const limit = new ConcurrencyLimit({ initial: 50, min: 5, max: 400 });
    drive(limit, 50, 5, 10);
    expect(limit.limit).toBe(50);
  });

  it('counts refusals and frees slots', () => {
    const limit = new ConcurrencyLimit({ initial: 2, min: 2, max: 2 });
    expect([limit.tryAcquire(), limit.tryAcquire(), limit.tryAcquire()]).toEqual([true, true, false]);
    expect(limit.rejected).toBe(1);
    limit.release(5, false);
    expect(limit.inFlight).toBe(1);
    expect(limit.tryAcquire()).toBe(true);
  });
});

describe('the purchase path over HTTP with the seat database stuck', () => {
  let t: TestService;
  afterAll(async () => { await t?.close(); });

  it('answers beyond the limit at once: 503 OVERLOADED with Retry-After', async () => {
    t = await startTestService({ config: { purchaseConcurrency: { initial: 8, min: 8, max: 8, bookingMin: 8 } } });
    const show = await createShow(t, { rows: 2, seatsPerRow: 20, per_user_limit: 1 });
    const buyers = await registerBuyers(t, 30);
    // Someone else holds every seat row's lock: each claim waits (the database is "slow").
    const blocker = new pg.Client({ connectionString: t.service.ctx.config.databaseUrl! });
    await blocker.connect();
    await blocker.query('begin');
    await blocker.query('select seat_id from show_seats where show_id = $1 for update', [show.showId]);
    const sent = buyers.map((b, i) => {
      const started = performance.now();
      return t.http.post(`/v1/shows/${show.showId}/holds`, { seats: [show.seats[i]!] }, b.token)
        .then((r) => ({ r, ms: performance.now() - started }));
    });
    await new Promise((r) => setTimeout(r, 1000));
    await blocker.query('rollback');
    await blocker.end();
    const answers = await Promise.all(sent);
    const shed = answers.filter((a) => a.r.status === 503);
    const served = answers.filter((a) => a.r.status === 201);
    console.log(`limit 8: ${served.length} held after the lock, ${shed.length} shed; slowest 503 ${Math.max(...shed.map((a) => a.ms)).toFixed(1)} ms`);
    expect(served.length).toBe(8);
    expect(shed.length).toBe(22);
    for (const a of shed) {
      expectProblem(a.r, 503, 'OVERLOADED');
      expect(a.r.headers['retry-after']).toBe('1');
      expect(a.ms).toBeLessThan(500); // answered while the eight were still stuck behind the lock
    }
    const m = await t.http.get('/metrics');
    expect(m.text).toMatch(/boxoffice_purchase_rejections_total\{path="hold"\} 22/);
    expect(m.text).toMatch(/boxoffice_purchase_in_flight\{path="hold"\} 0/);
  }, 60_000);
});
