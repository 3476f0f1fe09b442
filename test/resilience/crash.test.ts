// Invariants 4, 5 and 7 under crashes: the built service runs as a child
// process and is SIGKILLed every 1–3 s while hundreds of buyers pay for their
// holds (each retrying its own Idempotency-Key, as a real client does). The
// payment simulator lives on in this process, so the "bank" keeps its books
// and re-sends webhooks the dead service missed. Afterwards, once the service
// has settled every payment, the books and the database must agree: nobody
// charged without a confirmed booking or a full refund, nobody charged twice,
// no seat sold twice or stuck paying, one valid ticket per sold seat, and
// every cancellation refunded exactly once.
//
// Knobs: CRASH_BUYERS (300), CRASH_LOAD_MS (50000: buyers start spread over
// it), CRASH_CHAOS_MS (60000: killing stops then, or when every buyer is done),
// CRASH_KILL_MIN_MS/CRASH_KILL_MAX_MS (1000/3000), CRASH_FLOW_BUDGET_MS
// (150000 per buyer), CRASH_SETTLE_MS (60000: the budget asserted), CRASH_SETTLE_CAP_MS
// (120000: how long the test waits before checking anyway), CRASH_CANCEL_PCT (15: confirmed
// bookings the buyer then cancels, with a double-clicked cancel).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createTestDatabase, endPool, type TestDatabase } from '../support/database.js';
import { HttpClient } from '../support/http.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import type { TestService } from '../support/service.js';
import type { Simulator } from '@boxoffice/paysim';
import { payThroughBank, startBank } from './bank.js';
import { ChildService, ensureBuild, freePort } from './childService.js';
import {
  BuyerHttp, bookUntilDefinitive, cancelUntilDone, checkInvariants, envInt, holdFreshSeats, jitter, newRecord, openWork, percentile,
  replayEveryKey, SeatAllocator, slowest, sleep, stripeClient, tally, waitSettled, type BookingRecord,
} from './support.js';

const BUYERS = envInt('CRASH_BUYERS', 300);
const LOAD_MS = envInt('CRASH_LOAD_MS', 50_000);
const CHAOS_MS = envInt('CRASH_CHAOS_MS', 60_000);
const KILL_MIN_MS = envInt('CRASH_KILL_MIN_MS', 1000);
const KILL_MAX_MS = envInt('CRASH_KILL_MAX_MS', 3000);
const FLOW_BUDGET_MS = envInt('CRASH_FLOW_BUDGET_MS', 150_000);
// The service must settle within SETTLE_MS; the test waits up to SETTLE_CAP_MS so that the
// invariants are still checked (and reported) when settling is too slow.
const SETTLE_MS = envInt('CRASH_SETTLE_MS', 60_000);
const SETTLE_CAP_MS = Math.max(SETTLE_MS, envInt('CRASH_SETTLE_CAP_MS', 120_000));
const CANCEL_PCT = envInt('CRASH_CANCEL_PCT', 15);
const ADMIN = { email: 'admin@crash.test', password: 'admin-password-1' };

// Weighted mix of the contract's test payment methods.
const METHODS: [string, number][] = [
  ['pm_card_visa', 40], ['pm_card_declined', 15], ['pm_card_slow', 15], ['pm_card_timeout_succeeds', 15], ['pm_card_timeout_fails', 15],
];
function pickMethod(): string {
  let x = Math.random() * METHODS.reduce((s, [, w]) => s + w, 0);
  for (const [m, w] of METHODS) if ((x -= w) < 0) return m;
  return 'pm_card_visa';
}

const say = (s: string) => process.stdout.write(`[crash] ${s}\n`);

describe('resilience: SIGKILL the service while buyers pay', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let sim: Simulator;
  let simPort: number;
  let service: ChildService;
  let shows: { showId: string; seats: string[] }[] = [];
  let buyers: Buyer[] = [];
  const timings: Record<string, number> = {};

  beforeAll(async () => {
    let t0 = Date.now();
    const mainJs = ensureBuild(say);
    timings.build_ms = Date.now() - t0;

    db = await createTestDatabase();
    pool = new pg.Pool({ connectionString: db.url, max: 3 });
    const port = await freePort();
    ({ sim, port: simPort } = await startBank(port, { retryMaxMs: 5000, attemptTimeoutMs: 5000 }));

    service = new ChildService(mainJs, port, {
      DATABASE_URL: db.url,
      DB_POOL_SIZE: '10',
      BOXOFFICE_DEMO: '0',
      BOXOFFICE_ADMIN_EMAIL: ADMIN.email,
      BOXOFFICE_ADMIN_PASSWORD: ADMIN.password,
      ...payThroughBank(simPort),
      SEATMAP_CACHE_MS: '0',
      LOG_LEVEL: 'warn',
    }, path.join(tmpdir(), `boxoffice-crash-${process.pid}.log`));
    t0 = Date.now();
    await service.start();
    timings.first_start_ms = Date.now() - t0;

    // Catalog and buyers while the service is stable (scrypt is slow: 16 at a time).
    const http = new HttpClient(service.baseUrl);
    const session = await http.post('/v1/sessions', ADMIN);
    if (session.status !== 200) throw new Error(`admin sign-in failed: ${session.status} ${session.text}`);
    const t = { http, adminToken: session.body.token as string } as unknown as TestService;
    const seatsNeeded = Math.ceil(BUYERS * 1.5 * 3) + 200;
    const perShow = Math.ceil(seatsNeeded / 2);
    const seatsPerRow = 40;
    const rows = Math.min(26, Math.ceil(perShow / seatsPerRow));
    for (let i = 0; i < 2; i++) {
      const s = await createShow(t, { rows, seatsPerRow, per_user_limit: 30, hold_ttl_seconds: 600 });
      shows.push({ showId: s.showId, seats: s.seats });
    }
    t0 = Date.now();
    buyers = await registerBuyers(t, BUYERS);
    timings.register_ms = Date.now() - t0;
    say(`${BUYERS} buyers registered in ${timings.register_ms} ms; 2 shows x ${rows * seatsPerRow} seats; simulator on :${simPort}, service on :${port}`);
  }, 400_000);

  afterAll(async () => {
    await service?.stop().catch(() => {});
    await sim?.close().catch(() => {});
    if (pool) await endPool(pool).catch(() => {});
    await db?.drop().catch(() => {});
  });

  it('never loses money, never charges twice, never sells a seat twice', async () => {
    const startedAt = Date.now();
    const http = new BuyerHttp(service.baseUrl, 15_000, 512);
    const seats = new SeatAllocator(shows);
    const records: BookingRecord[] = [];
    const holdFailures: string[] = [];
    const unexpected: string[] = [];
    let flowsDone = 0;
    let holdTries = 0;
    let orphanHoldsPossible = 0;

    // ---- the buyers
    const runBuyer = async (i: number) => {
      await sleep(Math.floor((i * LOAD_MS) / BUYERS));
      const deadline = Date.now() + FLOW_BUDGET_MS;
      const buyer = buyers[i]!;
      try {
        const hold = await holdFreshSeats({ http, token: buyer.token, deadline, seats, count: 1 + (i % 2), showIndex: i % shows.length });
        if (!hold) { holdFailures.push(`buyer ${i}: no hold within the budget`); return; }
        holdTries += hold.tries;
        orphanHoldsPossible += hold.orphansPossible;
        const pm = pickMethod();
        const first = newRecord({ flow: i, buyer: i, holdId: hold.holdId, seats: hold.seats, paymentMethod: pm, key: `crash-${i}-a` });
        records.push(first);
        await bookUntilDefinitive({ http, token: buyer.token, deadline, onError: (e) => unexpected.push(e) }, first);
        // A declined hold stays active: try again with another card and a new key.
        if (first.final === 'failed') {
          const second = newRecord({ flow: i, buyer: i, holdId: hold.holdId, seats: hold.seats, paymentMethod: 'pm_card_visa', key: `crash-${i}-b` });
          records.push(second);
          await bookUntilDefinitive({ http, token: buyer.token, deadline, onError: (e) => unexpected.push(e) }, second);
        }
        // Some change their minds: a double-clicked cancel, repeated through crashes, refunds once.
        const paid = records.filter((r) => r.flow === i && r.final === 'confirmed');
        if (paid[0] && Math.random() * 100 < CANCEL_PCT) await cancelUntilDone({ http, token: buyer.token, deadline, onError: (e) => unexpected.push(e) }, paid[0]);
      } catch (err) {
        holdFailures.push(`buyer ${i}: ${(err as Error).message}`);
      } finally {
        flowsDone++;
      }
    };
    const load = Promise.all(buyers.map((_, i) => runBuyer(i)));

    // ---- the killer: SIGKILL every 1–3 s, restart on the same port, wait for /readyz
    const readyTimes: number[] = [];
    const chaosEnd = startedAt + CHAOS_MS;
    const killer = (async () => {
      while (Date.now() < chaosEnd && flowsDone < BUYERS) {
        await sleep(jitter(KILL_MIN_MS, KILL_MAX_MS));
        if (Date.now() >= chaosEnd || flowsDone >= BUYERS) break;
        await service.kill();
        readyTimes.push(await service.start());
      }
    })();
    await killer;
    const chaosMs = Date.now() - startedAt;
    say(`killing stopped after ${chaosMs} ms: ${service.kills} kills, ${service.starts - 1 - service.failedStarts.length} restarts (${service.failedStarts.length} failed starts); ${flowsDone}/${BUYERS} buyers done`);

    await load;
    const loadMs = Date.now() - startedAt;
    say(`all buyers done after ${loadMs} ms`);

    // ---- settle: the running service must resolve everything by itself
    const settle = await waitSettled(pool, SETTLE_CAP_MS, async () => {
      const s = sim.ctx.webhooks.stats();
      return s.waiting === 0 && s.in_flight === 0;
    }, say);
    say(`${settle.settled ? 'settled' : 'NOT settled'} after ${settle.ms} ms: ${JSON.stringify(settle.last)}`);

    const stripe = stripeClient(simPort);
    const piCountBefore = (await stripe.paymentIntents.list({ limit: 100 }).autoPagingToArray({ limit: 10_000 })).length;
    const replay = await replayEveryKey(http, buyers.map((b) => b.token), records);
    const report = await checkInvariants(pool, stripe, records);
    const piCountAfter = (await stripe.paymentIntents.list({ limit: 100 }).autoPagingToArray({ limit: 10_000 })).length;
    await http.close();

    const pmFinal: Record<string, Record<string, number>> = {};
    for (const r of records) (pmFinal[r.paymentMethod] ??= {})[r.final] = ((pmFinal[r.paymentMethod] ?? {})[r.final] ?? 0) + 1;
    const definitive = records.filter((r) => r.definitiveMs !== null).map((r) => r.definitiveMs!);
    const summary = {
      buyers: BUYERS,
      booking_requests_by_client: records.length,
      client_outcomes: tally(records.map((r) => r.final)),
      client_outcomes_by_method: pmFinal,
      first_answers: tally(records.map((r) => r.firstStatus ?? 'none')),
      client_retries: {
        connection_errors: records.reduce((s, r) => s + r.connErrors, 0),
        server_5xx: records.reduce((s, r) => s + r.serverErrors, 0),
        in_flight_409: records.reduce((s, r) => s + r.inFlight409, 0),
        polls: records.reduce((s, r) => s + r.polls, 0),
        hold_requests: holdTries,
        holds_maybe_orphaned: orphanHoldsPossible,
      },
      hold_failures: holdFailures.length,
      ...report.counts,
      simulator_webhooks: sim.ctx.webhooks.stats(),
      replayed_keys: replay.replays,
      pis_created_by_replays: piCountAfter - piCountBefore,
      kills: service.kills,
      restarts: service.starts - 1 - service.failedStarts.length,
      failed_starts: service.failedStarts,
      http_5xx_by_status_and_code: http.serverErrors,
      http_no_answer_by_code: http.connectionErrors,
      unexpected_exits: service.unexpectedExits.length,
      service_log_errors: service.logErrors(3),
      restart_to_ready_ms: { p50: percentile(readyTimes, 50), max: Math.max(0, ...readyTimes) },
      time_to_definitive_ms: { p50: percentile(definitive, 50), p99: percentile(definitive, 99), max: Math.max(0, ...definitive) },
      durations_ms: { ...timings, chaos: chaosMs, load: loadMs, settle: settle.ms, total_test: Date.now() - startedAt },
    };
    say(`SUMMARY ${JSON.stringify(summary, null, 2)}`);
    say(`slowest flows:\n${(await slowest(pool, records, 5)).join('\n')}`);
    const problems = [...report.violations, ...replay.problems, ...unexpected, ...holdFailures, ...service.unexpectedExits];
    if (piCountAfter !== piCountBefore) problems.push(`repeating every key created ${piCountAfter - piCountBefore} new PaymentIntents`);
    if (problems.length) say(`VIOLATIONS (${problems.length}):\n${problems.slice(0, 80).join('\n')}`);
    if (problems.length) say(`service log tail:\n${service.logTail(30)}`);

    const open = await openWork(pool);
    expect.soft(open, 'settled: nothing pending, no open attempt, outbox empty').toMatchObject({
      pending_bookings: 0, open_attempts: 0, outbox_open: 0, pending_refunds: 0, unprocessed_webhooks: 0, paying_seats: 0, paying_holds: 0,
    });
    expect.soft(settle.settled && settle.ms <= SETTLE_MS, `settled within ${SETTLE_MS} ms (took ${settle.ms} ms${settle.settled ? '' : ', and still not settled'})`).toBe(true);
    expect.soft(problems).toEqual([]);
    expect.soft(service.kills).toBeGreaterThan(0);
    // Every restart gets ready at its first start: the same port, the same database.
    expect.soft(service.failedStarts, 'failed starts (each with its reason)').toEqual([]);
    // A dead service answers nothing (no answer is counted by code above). Whatever
    // answers is an instance that runs: never a 500, and 503 only as the contract's
    // OVERLOADED (a killed instance's transaction may hold row locks until
    // PostgreSQL sees its connection gone, so a lock timeout is possible).
    const wrong5xx = Object.fromEntries(Object.entries(http.serverErrors).filter(([k]) => k !== '503 OVERLOADED'));
    expect.soft(wrong5xx, `5xx other than 503 OVERLOADED; first answers: ${http.serverErrorSamples.join(' | ')}`).toEqual({});
  }, 600_000);
});
