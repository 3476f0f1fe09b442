// A show cancelled with CANCEL_CRASH_BOOKINGS (2,000) confirmed bookings, payments
// still in flight (pm_card_slow: mid-payment; pm_card_timeout_*: pending, their first
// answer lost) and unpaid holds, while the built service runs as a child process that
// is SIGKILLed twice during the refunds (once while bookings are still being
// cancelled, if it can catch that, once while refunds are on their way). The payment
// simulator lives in this process and keeps its books. Afterwards: every booking that
// was paid is cancelled by the organiser, every charge refunded exactly once (the
// simulator's charges minus its refunds are zero), no booking confirmed or pending,
// no live hold, no valid ticket, and no ticket checks in.
//
// Knobs: CANCEL_CRASH_BOOKINGS (2000), CANCEL_CRASH_IN_FLIGHT (60: payments started
// just before the cancellation), CANCEL_CRASH_SETTLE_MS (180000).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Agent } from 'undici';
import { createTestDatabase, endPool, type TestDatabase } from '../support/database.js';
import { HttpClient, type HttpAnswer } from '../support/http.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import type { TestService } from '../support/service.js';
import type { Simulator } from '@boxoffice/paysim';
import { payThroughBank, startBank } from './bank.js';
import { ChildService, ensureBuild, freePort } from './childService.js';
import { envInt, sleep, waitSettled } from './support.js';

const BOOKINGS = envInt('CANCEL_CRASH_BOOKINGS', 2000);
const IN_FLIGHT = envInt('CANCEL_CRASH_IN_FLIGHT', 60);
const SETTLE_MS = envInt('CANCEL_CRASH_SETTLE_MS', 180_000);
const BUYERS = 50;
const ADMIN = { email: 'admin@cancel-crash.test', password: 'admin-password-1' };
const say = (s: string) => process.stdout.write(`[cancel-crash] ${s}\n`);

/** Runs `tasks` with at most `n` at once. */
async function inParallel<T>(n: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = new Array(tasks.length);
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < tasks.length) {
      const i = next++;
      out[i] = await tasks[i]!();
    }
  }));
  return out;
}

/** A set-up request, retried while the service sheds load (503) or is between lives. */
async function settled(what: string, f: () => Promise<HttpAnswer>, expected: number): Promise<HttpAnswer> {
  for (let i = 0; ; i++) {
    const r = await f().catch((err: unknown) => ({ status: 0, text: String(err) }) as HttpAnswer);
    if (r.status === expected) return r;
    if ((r.status !== 503 && r.status !== 0) || i > 40) throw new Error(`${what}: ${r.status} ${r.text}`);
    await sleep(250);
  }
}

describe('resilience: a cancelled show refunds every booking once through two SIGKILLs', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let sim: Simulator;
  let service: ChildService;
  let http: HttpClient;
  let agent: Agent;
  let adminToken: string;
  let showId: string;
  let seats: string[];
  let buyers: Buyer[];

  beforeAll(async () => {
    const mainJs = ensureBuild(say);
    db = await createTestDatabase();
    pool = new pg.Pool({ connectionString: db.url, max: 3 });
    const port = await freePort();
    let simPort: number;
    ({ sim, port: simPort } = await startBank(port, { retryMaxMs: 5000, attemptTimeoutMs: 5000 }));
    service = new ChildService(mainJs, port, {
      DATABASE_URL: db.url, DB_POOL_SIZE: '10', BOXOFFICE_DEMO: '0',
      BOXOFFICE_ADMIN_EMAIL: ADMIN.email, BOXOFFICE_ADMIN_PASSWORD: ADMIN.password,
      ...payThroughBank(simPort), SEATMAP_CACHE_MS: '0', LOG_LEVEL: 'warn',
    }, path.join(tmpdir(), `boxoffice-cancel-crash-${process.pid}.log`));
    await service.start();
    agent = new Agent({ connections: 64, pipelining: 1, keepAliveTimeout: 1000 });
    http = new HttpClient(service.baseUrl, agent);
    const session = await http.post('/v1/sessions', ADMIN);
    if (session.status !== 200) throw new Error(`admin sign-in failed: ${session.status} ${session.text}`);
    adminToken = session.body.token as string;
    const t = { http, adminToken } as unknown as TestService;
    const seatsPerRow = 100;
    const rows = Math.ceil((BOOKINGS + IN_FLIGHT + 40) / seatsPerRow);
    ({ showId, seats } = await createShow(t, { rows, seatsPerRow, per_user_limit: 1000, hold_ttl_seconds: 600 }));
    buyers = await registerBuyers(t, BUYERS);
    say(`show ${showId}: ${seats.length} seats; ${BUYERS} buyers; service on :${port}, simulator on :${simPort}`);
  }, 300_000);

  afterAll(async () => {
    await service?.stop().catch(() => {});
    await agent?.close().catch(() => {});
    await sim?.close().catch(() => {});
    if (pool) await endPool(pool).catch(() => {});
    await db?.drop().catch(() => {});
  });

  const hold = async (seat: string, buyer: Buyer) =>
    (await settled(`hold ${seat}`, () => http.post(`/v1/shows/${showId}/holds`, { seats: [seat] }, buyer.token), 201)).body.hold_id as string;
  const pay = (holdId: string, buyer: Buyer, method: string, key: string) =>
    http.post('/v1/bookings', { hold_id: holdId, payment_method: method }, buyer.token, { 'idempotency-key': key });
  const figures = async () => {
    const r = await pool.query<{ cancelled: string; confirmed: string; pending: string; refunds_pending: string; refunds_done: string }>(
      `select (select count(*) from bookings where show_id = $1 and status = 'cancelled') as cancelled,
              (select count(*) from bookings where show_id = $1 and status = 'confirmed') as confirmed,
              (select count(*) from bookings where show_id = $1 and status = 'pending') as pending,
              (select count(*) from refunds r join bookings b on b.id = r.booking_id where b.show_id = $1 and r.status = 'pending') as refunds_pending,
              (select count(*) from refunds r join bookings b on b.id = r.booking_id where b.show_id = $1 and r.status = 'succeeded') as refunds_done`,
      [showId]);
    return Object.fromEntries(Object.entries(r.rows[0]!).map(([k, v]) => [k, Number(v)])) as Record<keyof typeof r.rows[0], number>;
  };

  it('cancels every booking, refunds every charge once, and no ticket checks in', async () => {
    // ---- 2,000 confirmed bookings, one seat each.
    let t0 = Date.now();
    const confirmed = await inParallel(12, Array.from({ length: BOOKINGS }, (_, i) => async () => {
      const buyer = buyers[i % BUYERS]!;
      const holdId = await hold(seats[i]!, buyer);
      const r = await settled(`booking ${i}`, () => pay(holdId, buyer, 'pm_card_visa', `cc-${i}`), 201);
      // A busy machine may answer before the provider did: the booking is pending until its outcome arrives.
      for (let status = r.body.status as string, tries = 0; status !== 'confirmed'; tries++) {
        if (status !== 'pending' || tries > 100) throw new Error(`booking ${i}: ${status}`);
        await sleep(200);
        status = (await settled(`booking ${i}`, () => http.get(`/v1/bookings/${r.body.booking_id}`, buyer.token), 200)).body.status;
      }
      return r.body.booking_id as string;
    }));
    say(`${confirmed.length} confirmed bookings in ${Date.now() - t0} ms`);
    // Tickets of the early bookings are issued meanwhile; keep a few codes for the gate.
    const deadline = Date.now() + 60_000;
    let codes: string[] = [];
    while (codes.length < 20 && Date.now() < deadline) {
      codes = (await pool.query<{ code: string }>(`select code from tickets where show_id = $1 and status = 'valid' limit 40`, [showId])).rows.map((r) => r.code);
      if (codes.length < 20) await sleep(200);
    }
    expect(codes.length, 'tickets issued before the cancellation').toBeGreaterThanOrEqual(20);

    // ---- payments in flight and unpaid holds at the moment of the cancellation.
    const methods = ['pm_card_slow', 'pm_card_timeout_succeeds', 'pm_card_timeout_fails'];
    const flightHolds = await inParallel(12, Array.from({ length: IN_FLIGHT + 20 }, (_, k) => async () =>
      ({ k, buyer: buyers[k % BUYERS]!, holdId: await hold(seats[BOOKINGS + k]!, buyers[k % BUYERS]!) })));
    const unpaid = flightHolds.slice(IN_FLIGHT);
    const inFlight = flightHolds.slice(0, IN_FLIGHT).map(({ k, buyer, holdId }) =>
      pay(holdId, buyer, methods[k % methods.length]!, `flight-${k}`).catch(() => null));
    const paying = async () => Number((await pool.query<{ n: string }>(`select count(*) as n from holds where show_id = $1 and status = 'paying'`, [showId])).rows[0]!.n);
    while ((await paying()) < IN_FLIGHT / 2) await sleep(20);

    // ---- the cancellation, and two SIGKILLs while it works.
    const cancel = await settled('cancel', () => http.post(`/v1/admin/shows/${showId}/cancel`, { reason: 'storm warning' }, adminToken), 202);
    say(`cancelled: ${JSON.stringify(cancel.body)}; payments in flight: ${await paying()}`);
    // The confirmed ones, and any payment in flight that succeeded before the cancellation committed.
    expect(cancel.body.bookings_to_refund).toBeGreaterThanOrEqual(BOOKINGS);
    expect((await http.post(`/v1/shows/${showId}/holds`, { seats: [seats[seats.length - 1]!] }, buyers[0]!.token)).body.code).toBe('SHOW_CANCELLED');
    t0 = Date.now();
    const kills: Record<string, number>[] = [];
    for (const when of [(f: Record<string, number>) => f.cancelled! > 0, (f: Record<string, number>) => f.refunds_done! >= BOOKINGS / 4]) {
      for (;;) {
        const f = await figures();
        if (when(f)) break;
        await sleep(10);
      }
      await service.kill();
      kills.push({ at_ms: Date.now() - t0, ...(await figures()) });
      await service.start();
    }
    say(`killed at: ${JSON.stringify(kills)}`);
    await Promise.all(inFlight);

    // ---- the restarted service finishes by itself: every booking cancelled, then every refund sent.
    const readProgress = async () => (await http.get(`/v1/admin/shows/${showId}/cancellation`, adminToken)).body;
    let progress = await readProgress();
    for (const end = Date.now() + SETTLE_MS; !progress.completed && Date.now() < end; await sleep(250)) progress = await readProgress();
    const completedMs = Date.now() - t0;
    const settle = await waitSettled(pool, SETTLE_MS, async () => {
      const s = sim.ctx.webhooks.stats();
      return s.waiting === 0 && s.in_flight === 0;
    }, say);
    progress = await readProgress();
    say(`cancellation completed ${completedMs} ms after the cancel; ${settle.settled ? 'settled' : 'NOT settled'} ${settle.ms} ms later; progress ${JSON.stringify(progress)}`);

    // ---- the books. Every booking paid for is cancelled by the organiser; nothing confirmed or pending.
    const rows = (await pool.query<{ id: string; status: string; cancelled_by: string | null; amount: string; refund_status: string | null; provider_payment_id: string | null }>(
      `select b.id, b.status, b.cancelled_by, b.amount, r.status as refund_status, a.provider_payment_id
         from bookings b left join refunds r on r.booking_id = b.id left join payment_attempts a on a.booking_id = b.id
        where b.show_id = $1`, [showId])).rows;
    const byStatus: Record<string, number> = {};
    for (const b of rows) byStatus[`${b.status}${b.cancelled_by ? `/${b.cancelled_by}` : ''}`] = (byStatus[`${b.status}${b.cancelled_by ? `/${b.cancelled_by}` : ''}`] ?? 0) + 1;
    const pis = sim.ctx.store.paymentIntents.all();
    const refunds = sim.ctx.store.refunds.all();
    const charged = pis.filter((pi) => pi.status === 'succeeded');
    const chargedSum = charged.reduce((s, pi) => s + pi.amount_received, 0);
    const refundedSum = refunds.reduce((s, r) => s + r.amount, 0);
    const refundsPerPi = new Map<string, number>();
    for (const r of refunds) refundsPerPi.set(r.payment_intent, (refundsPerPi.get(r.payment_intent) ?? 0) + 1);
    const refundedTwice = [...refundsPerPi].filter(([, n]) => n > 1);
    const notRefunded = charged.filter((pi) => refundsPerPi.get(pi.id) !== 1).map((pi) => pi.id);
    say(`bookings ${JSON.stringify(byStatus)}; simulator: ${charged.length} charges (${chargedSum}), ${refunds.length} refunds (${refundedSum})`);

    expect(kills).toHaveLength(2);
    // Both kills came while refunds were still to be sent.
    for (const k of kills) expect(k.refunds_done, JSON.stringify(k)).toBeLessThan(BOOKINGS);
    expect(settle.settled).toBe(true);
    expect(progress.completed).toBe(true);
    expect(rows.filter((b) => b.status === 'confirmed' || b.status === 'pending')).toEqual([]);
    expect(rows.filter((b) => b.status === 'cancelled' && b.cancelled_by !== 'organiser')).toEqual([]);
    // Every booking that was charged is cancelled by the organiser with a refund that went through.
    const chargedIds = new Set(charged.map((pi) => pi.id));
    const paidBookings = rows.filter((b) => b.provider_payment_id && chargedIds.has(b.provider_payment_id));
    expect(paidBookings.length).toBeGreaterThanOrEqual(BOOKINGS);
    expect(paidBookings.filter((b) => b.status !== 'cancelled' || b.refund_status !== 'succeeded')).toEqual([]);
    expect(progress).toMatchObject({ bookings_to_refund: paidBookings.length, bookings_cancelled: paidBookings.length, bookings_remaining: 0, payments_pending: 0 });
    expect(progress.refunds).toMatchObject({ pending: 0, succeeded: paidBookings.length, failed: 0, amount_refunded: chargedSum });
    expect(refundedTwice).toEqual([]);
    expect(notRefunded).toEqual([]);
    expect(chargedSum - refundedSum).toBe(0);

    // No live hold, no seat taken, no valid ticket; the gate says void to every code it sees.
    // Counts as int4: a bigint's text form depends on whether this worker process set pg's int8 parser (src/db/client.ts).
    const left = (await pool.query<{ active: number; taken: number; valid: number; checked_in: number }>(
      `select (select count(*) from holds where show_id = $1 and status in ('active', 'paying'))::int as active,
              (select count(*) from show_seats where show_id = $1 and status <> 'available')::int as taken,
              (select count(*) from tickets where show_id = $1 and status = 'valid')::int as valid,
              (select count(*) from tickets where show_id = $1 and checked_in_at is not null)::int as checked_in`, [showId])).rows[0]!;
    expect(left).toEqual({ active: 0, taken: 0, valid: 0, checked_in: 0 });
    for (const u of unpaid) expect((await http.get(`/v1/holds/${u.holdId}`, u.buyer.token)).body.status).toBe('released');
    const gate = await Promise.all(codes.map((code) => http.post('/v1/checkin', { code }, adminToken)));
    expect(gate.map((r) => r.status)).toEqual(codes.map(() => 410));
    expect(service.unexpectedExits).toEqual([]);
    expect(service.failedStarts).toEqual([]);
  }, 900_000);
});
