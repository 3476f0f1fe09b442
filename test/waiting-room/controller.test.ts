// The admission controller: the rate follows hold latency to a set point, falls
// within two ticks of latency injected into the seat database, and climbs back
// afterwards without passing the rate it had before. Pure first, then on a real service with a real slowdown (a trigger
// that makes every hold insert sleep).
import { afterAll, describe, expect, it } from 'vitest';
import { AdmissionController, type Signals } from '../../src/waiting-room/admissionController.js';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers } from '../support/catalog.js';
import { roomConfig } from './helpers.js';

const calm = (over: Partial<Signals> = {}): Signals => ({
  holdLatencyMs: 8, fastestHoldMs: 5, holds: 200, rejections: 0, poolWaiting: 0, poolUtilization: null, completions: 50, windowMs: 2000, ...over,
});
const idle = { holds: 0, holdLatencyMs: null, fastestHoldMs: null };
/** A controller started at half its ceiling: the cases below are about what it does from there. */
const fromHalf = (ceiling: number, floor: number) => new AdmissionController(ceiling, floor, ceiling / 2);

describe('the admission controller (pure)', () => {
  it('starts at a quarter of the ceiling and climbs by at most 30 % a tick while holds are far under the set point, not on idle ticks', () => {
    const c = new AdmissionController(1200, 6);
    expect(c.ratePerMinute()).toBe(300);
    expect(c.tick(calm(idle))).toBe(300);
    // calm 5 ms + 120 ms queued: holds of 8 ms are 94 % under the set point, so the rise is the most, 30 % (rounded up)
    expect(Array.from({ length: 6 }, () => c.tick(calm()))).toEqual([390, 507, 660, 858, 1116, 1200]);
    expect(c.view()).toMatchObject({ decision: 'open', reason: 'hold latency 8.0 ms, set point 125.0 ms', baseline_hold_latency_ms: 5, set_point_ms: 125 });
    expect(c.tick(calm())).toBe(1200);
    expect(c.view()).toMatchObject({ decision: 'hold', reason: 'calm, at the ceiling' });
  });

  it('takes the fastest single hold as calm, so a cold first window does not set it', () => {
    const c = new AdmissionController(1200, 6);
    c.tick(calm({ holdLatencyMs: 150, fastestHoldMs: 120 }));
    c.tick(calm({ holdLatencyMs: 60, fastestHoldMs: 20 }));
    expect(c.view()).toMatchObject({ baseline_hold_latency_ms: 20, reason: 'hold latency 60.0 ms, set point 140.0 ms' });
  });

  it('rises in proportion to the distance under the set point, keeps the rate at it; a busy pool alone changes nothing', () => {
    const c = fromHalf(1200, 6);
    expect(c.tick(calm())).toBe(780);
    // 110 ms against a set point of 125 ms: 12 % under it, so 12 % up, with every connection busy
    expect(c.tick(calm({ holdLatencyMs: 110, poolUtilization: 1, poolWaiting: 12 }))).toBe(874);
    expect(c.view()).toMatchObject({ decision: 'open', reason: 'hold latency 110.0 ms, set point 125.0 ms', pool_utilization: 1, pool_waiting: 12 });
    expect(c.tick(calm({ holdLatencyMs: 125, poolUtilization: 1 }))).toBe(874);
    expect(c.view().decision).toBe('hold');
  });

  it('at a saturated pool rises no further than a fifth over the purchases completed, and never cuts for it', () => {
    const c = fromHalf(12_000, 6);
    expect(c.ratePerMinute()).toBe(6000);
    // every connection busy, 160 purchases in the 2 s window (4,800 a minute): 5,760 at most, and no cut from 6,000
    expect(c.tick(calm({ poolUtilization: 1, completions: 160 }))).toBe(6000);
    expect(c.view()).toMatchObject({ decision: 'hold', reason: 'hold latency 8.0 ms, set point 125.0 ms; the pool is saturated at 4800 purchases/min' });
    // 250 in the window (7,500 a minute): up to 9,000, though the latency alone would allow 30 %
    expect(c.tick(calm({ poolUtilization: 0.97, completions: 250 }))).toBe(7800);
    expect(c.tick(calm({ poolUtilization: 0.97, completions: 250 }))).toBe(9000);
    // a pool with room to spare: the latency's law alone
    expect(c.tick(calm({ poolUtilization: 0.8, completions: 250 }))).toBe(11_700);
  });

  it('with the pool half idle and holds under the set point, rises at once to nine tenths of what the pool could complete', () => {
    const c = fromHalf(12_000, 6);
    expect(c.tick(calm({ rejections: 50 }))).toBe(4200); // the crowded first seconds: a cut on refusals
    // 150 purchases in the 2 s window (4,500 a minute) with the pool busy half of it: room for 9,000, nine tenths of that
    expect(c.tick(calm({ holdLatencyMs: 70, poolUtilization: 0.5, completions: 150 }))).toBe(8100);
    expect(c.view()).toMatchObject({ decision: 'open', reason: 'hold latency 70.0 ms, set point 125.0 ms; the pool, 50 % busy, has room for 8100 purchases/min' });
    // never past the ceiling, and only under the set point
    expect(c.tick(calm({ holdLatencyMs: 70, poolUtilization: 0.3, completions: 150 }))).toBe(12_000);
    const d = fromHalf(12_000, 6);
    expect(d.tick(calm({ holdLatencyMs: 150, poolUtilization: 0.5, completions: 150 }))).toBeLessThan(6000);
    // too few purchases to say, or the pool unmeasured: the law's 30 % at most
    const e = fromHalf(12_000, 6);
    expect(e.tick(calm({ poolUtilization: 0.1, completions: 19 }))).toBe(7800);
    expect(e.tick(calm({ poolUtilization: null, completions: 150 }))).toBe(10_140);
  });

  it('at a saturated pool cuts no lower than four fifths of the purchases it completed', () => {
    const c = fromHalf(12_000, 6);
    for (let i = 0; i < 2; i++) c.tick(calm());
    expect(c.ratePerMinute()).toBe(10_140);
    // far over the set point with every connection busy, 300 purchases in the 2 s window (9,000 a minute): 7,200, not 40 % off
    expect(c.tick(calm({ holdLatencyMs: 400, poolUtilization: 1, completions: 300 }))).toBe(7200);
    expect(c.view().decision).toBe('close');
    // the same with a pool that had room: the latency's law alone
    const d = fromHalf(12_000, 6);
    for (let i = 0; i < 2; i++) d.tick(calm());
    expect(d.tick(calm({ holdLatencyMs: 400, poolUtilization: 0.8, completions: 300 }))).toBe(6084);
  });

  it('steers to the set point: cuts in proportion to how slow the holds are (40 % at most), recovers to the ceiling without overshoot', () => {
    const c = new AdmissionController(1200, 6);
    for (let i = 0; i < 8; i++) c.tick(calm());
    expect(c.ratePerMinute()).toBe(1200);
    expect(c.tick(calm({ holdLatencyMs: 125 }))).toBe(1200); // at the set point: stays
    expect(c.tick(calm({ holdLatencyMs: 156.25 }))).toBe(1050); // a quarter over the set point: half of that, 12.5 %
    expect(c.tick(calm({ holdLatencyMs: 400 }))).toBe(630); // far over, and slower than at the last cut: the most, 40 %
    expect(c.view()).toMatchObject({ decision: 'close', hold_latency_ms: 400, reason: 'hold latency 400.0 ms, set point 125.0 ms' });
    expect(c.tick(calm({ holdLatencyMs: 300 }))).toBe(630); // slow still, but less than at that cut: it is given a tick to act
    expect(c.view()).toMatchObject({ decision: 'hold', reason: 'hold latency 300.0 ms, set point 125.0 ms: the last cut has not reached the purchase path yet' });
    const recovery: number[] = [];
    for (let i = 0; i < 15; i++) recovery.push(c.tick(calm()));
    for (let i = 1; i < recovery.length; i++) expect(recovery[i]!).toBeGreaterThanOrEqual(recovery[i - 1]!);
    expect(recovery[0]).toBe(819); // 30 % a tick: back at the ceiling in three
    expect(Math.max(...recovery)).toBe(1200);
    expect(recovery.at(-1)).toBe(1200);
  });

  it('closes on a share of purchase-path rejections, not on a stray one nor on a busy pool; never below its floor', () => {
    const c = new AdmissionController(1000, 6);
    for (let i = 0; i < 8; i++) c.tick(calm());
    expect(c.ratePerMinute()).toBe(1000);
    expect(c.tick(calm({ rejections: 3 }))).toBe(1000); // 3 of 203: under 5 %
    expect(c.tick(calm({ poolWaiting: 15, poolUtilization: 1 }))).toBe(1000); // every connection busy, holds still fast
    expect(c.tick(calm({ rejections: 30 }))).toBe(700);
    expect(c.view()).toMatchObject({ decision: 'close', reason: '30 purchases refused with 503' });
    // nothing but refusals, right after a cut: that cut is given a tick to act
    expect(c.tick(calm({ ...idle, rejections: 2 }))).toBe(700);
    expect(c.view()).toMatchObject({ decision: 'hold', reason: '2 purchases refused with 503: the last cut has not reached the purchase path yet' });
    expect(c.tick(calm({ ...idle, rejections: 2 }))).toBe(490);
    for (let i = 0; i < 30; i++) c.tick(calm({ holdLatencyMs: 500 }));
    expect(c.ratePerMinute()).toBe(6);
  });
});

describe('the admission controller on a real service', () => {
  let t: TestService;
  afterAll(async () => { await t?.close(); });

  it('falls within two ticks of injected database latency and recovers without overshoot', async () => {
    t = await startTestService({ config: roomConfig(null, { admitPerMinute: 1200, controlMs: 250 }) });
    const controller = t.service.ctx.room.controller!;
    const show = await createShow(t, { per_user_limit: 200 });
    const buyers = await registerBuyers(t, 4);
    let running = true;
    // Buyers hold and release seats continuously: the purchase path's latency is measured from them.
    const load = buyers.map(async (b, i) => {
      for (let k = 0; running; k++) {
        const seat = show.seats[(i * 50 + (k % 50))]!;
        const r = await t.http.post(`/v1/shows/${show.showId}/holds`, { seats: [seat] }, b.token);
        if (r.status === 201) await t.http.delete(`/v1/holds/${r.body.hold_id}`, b.token);
      }
    });
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    // Up to the ceiling first: 30 % a tick while holds stay well under the set point.
    for (let i = 0; i < 100 && controller.ratePerMinute() < 1200; i++) await sleep(100);
    expect(controller.view()).toMatchObject({ rate_per_minute: 1200 });
    const db = t.service.ctx.db;
    await db.script(`create function bo_test_slow() returns trigger language plpgsql as $$ begin perform pg_sleep(0.2); return new; end $$;
      create trigger bo_test_slow before insert on holds for each row execute function bo_test_slow()`);
    const injectedAt = controller.view().ticks;
    const fell = await (async () => {
      for (;;) {
        const v = controller.view();
        if (v.rate_per_minute < 1200) return v;
        if (v.ticks > injectedAt + 2) return null;
        await sleep(20);
      }
    })();
    expect(fell, 'the rate fell within two ticks').not.toBeNull();
    console.log(`controller: closed at tick ${fell!.ticks - injectedAt} after the injection (${fell!.reason}), rate ${fell!.rate_per_minute}`);
    await sleep(600);
    await db.script('drop trigger bo_test_slow on holds; drop function bo_test_slow()');
    const rates: number[] = [];
    for (let i = 0; i < 60 && controller.ratePerMinute() < 1200; i++) {
      rates.push(controller.ratePerMinute());
      await sleep(100);
    }
    rates.push(controller.ratePerMinute());
    running = false;
    await Promise.all(load);
    console.log(`controller: recovery ${[...new Set(rates)].join(' -> ')}`);
    expect(rates.at(-1)).toBe(1200);
    expect(Math.max(...rates)).toBeLessThanOrEqual(1200);
    const admin = await t.http.get(`/v1/admin/shows/${(await createShow(t, { waiting_room: true })).showId}/queue`, t.adminToken);
    expect(admin.body.controller).toMatchObject({ rule: 'measured', rate_per_minute: 1200, ceiling_per_minute: 1200 });
  }, 60_000);
});
