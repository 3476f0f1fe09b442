// Invariants 4 and 5 against a misbehaving bank: the payment simulator loses
// 20% of its answers after committing the charge, fails 10% of requests with
// a 5xx, sends 30% of webhooks twice, late (0–3 s) and out of order. A thousand
// bookings by a hundred buyers (mostly pm_card_visa), every client repeating
// its own Idempotency-Key on timeouts, 5xx and 409 in-flight. Once the service
// has settled, the bank's books and the database must agree exactly, and a
// few cancellations must each be refunded exactly once through the same chaos.
//
// Knobs: CHAOS_BOOKINGS (1000), CHAOS_BUYERS (bookings / 10), CHAOS_SEED
// (random; printed), CHAOS_CLIENT_TIMEOUT_MS (3000), CHAOS_SETTLE_MS (60000: the
// budget asserted), CHAOS_SETTLE_CAP_MS (150000: how long the test waits before checking anyway),
// CHAOS_CANCEL_PCT (5: confirmed bookings then cancelled, refunds through the chaos).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { AddressInfo } from 'node:net';
import { startTestService, type TestService } from '../support/service.js';
import { endPool } from '../support/database.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import {
  BuyerHttp, bookUntilDefinitive, cancelUntilDone, checkInvariants, envInt, holdFreshSeats, newRecord, openWork, percentile,
  replayEveryKey, SeatAllocator, slowest, stripeClient, tally, waitSettled, type BookingRecord,
} from './support.js';

const BOOKINGS = envInt('CHAOS_BOOKINGS', 1000);
const BUYERS = Math.max(1, envInt('CHAOS_BUYERS', Math.ceil(BOOKINGS / 10)));
const SEED = envInt('CHAOS_SEED', Math.floor(Math.random() * 2 ** 31));
const CLIENT_TIMEOUT_MS = envInt('CHAOS_CLIENT_TIMEOUT_MS', 3000);
// The service must settle within SETTLE_MS; the test waits up to SETTLE_CAP_MS so that the
// invariants are still checked (and reported) when settling is too slow.
const SETTLE_MS = envInt('CHAOS_SETTLE_MS', 60_000);
const SETTLE_CAP_MS = Math.max(SETTLE_MS, envInt('CHAOS_SETTLE_CAP_MS', 150_000));
const FLOW_BUDGET_MS = envInt('CHAOS_FLOW_BUDGET_MS', 120_000);
const CANCEL_PCT = envInt('CHAOS_CANCEL_PCT', 5);

const CHAOS = {
  timeout_after_commit_rate: 0.2,
  error_rate: 0.1,
  webhook_duplicate_rate: 0.3,
  webhook_delay_ms: 3000,
  webhook_reorder: true,
};

// Mostly the happy card; the rest exercises declines, slow answers and lost answers on purpose.
const METHODS: [string, number][] = [
  ['pm_card_visa', 70], ['pm_card_declined', 8], ['pm_card_slow', 6], ['pm_card_timeout_succeeds', 8], ['pm_card_timeout_fails', 8],
];
function pickMethod(): string {
  let x = Math.random() * METHODS.reduce((s, [, w]) => s + w, 0);
  for (const [m, w] of METHODS) if ((x -= w) < 0) return m;
  return 'pm_card_visa';
}

const say = (s: string) => process.stdout.write(`[chaos] ${s}\n`);

describe('resilience: a chaotic payment provider', () => {
  let t: TestService;
  let pool: pg.Pool;
  let buyers: Buyer[] = [];
  const shows: { showId: string; seats: string[] }[] = [];
  const timings: Record<string, number> = {};

  beforeAll(async () => {
    t = await startTestService({
      payments: {
        chaos: CHAOS,
        seed: SEED,
        webhook: { retryBaseMs: 100, retryMaxMs: 5000, maxAttempts: 20, concurrency: 8 },
      },
      config: { paymentTimeoutMs: 800, reconcileBaseSeconds: 0.2, workerIntervalMs: 100, poolSize: 10 },
    });
    pool = new pg.Pool({ connectionString: t.service.ctx.config.databaseUrl!, max: 2 });
    // A large hall, several shows: one seat per booking plus room for orphaned holds.
    const showCount = 4;
    const perShow = Math.ceil((BOOKINGS * 1.3 + 100) / showCount);
    const seatsPerRow = 40;
    const rows = Math.min(26, Math.ceil(perShow / seatsPerRow));
    for (let i = 0; i < showCount; i++) {
      const s = await createShow(t, { rows, seatsPerRow, per_user_limit: 50, hold_ttl_seconds: 600 });
      shows.push({ showId: s.showId, seats: s.seats });
    }
    const t0 = Date.now();
    buyers = await registerBuyers(t, BUYERS);
    timings.register_ms = Date.now() - t0;
    say(`seed ${SEED}; ${BUYERS} buyers registered in ${timings.register_ms} ms; ${showCount} shows x ${rows * seatsPerRow} seats; chaos ${JSON.stringify(CHAOS)}`);
  }, 300_000);

  afterAll(async () => {
    if (pool) await endPool(pool).catch(() => {});
    await t?.close();
  });

  it('keeps the books and the database in agreement', async () => {
    const startedAt = Date.now();
    const sim = t.simulator!;
    const http = new BuyerHttp(t.baseUrl, CLIENT_TIMEOUT_MS, 512);
    const seats = new SeatAllocator(shows);
    const records: BookingRecord[] = [];
    const unexpected: string[] = [];
    const holdFailures: string[] = [];
    let nextFlow = 0;

    const runBuyer = async (b: number) => {
      const buyer = buyers[b]!;
      for (;;) {
        const flow = nextFlow++;
        if (flow >= BOOKINGS) return;
        const deadline = Date.now() + FLOW_BUDGET_MS;
        let hold: Awaited<ReturnType<typeof holdFreshSeats>>;
        try {
          hold = await holdFreshSeats({ http, token: buyer.token, deadline, seats, count: 1 });
        } catch (err) {
          holdFailures.push(`flow ${flow}: ${(err as Error).message}`);
          continue;
        }
        if (!hold) { holdFailures.push(`flow ${flow}: no hold`); continue; }
        const pm = pickMethod();
        const rec = newRecord({ flow, buyer: b, holdId: hold.holdId, seats: hold.seats, paymentMethod: pm, key: `chaos-${flow}-a` });
        records.push(rec);
        await bookUntilDefinitive({ http, token: buyer.token, deadline, postTimeoutMs: CLIENT_TIMEOUT_MS, onError: (e) => unexpected.push(e) }, rec);
        if (rec.final === 'failed') {
          const again = newRecord({ flow, buyer: b, holdId: hold.holdId, seats: hold.seats, paymentMethod: 'pm_card_visa', key: `chaos-${flow}-b` });
          records.push(again);
          await bookUntilDefinitive({ http, token: buyer.token, deadline, postTimeoutMs: CLIENT_TIMEOUT_MS, onError: (e) => unexpected.push(e) }, again);
        }
        // A few cancel (double-clicked): the refund goes through the same chaotic bank, once.
        const paid = records.filter((r) => r.flow === flow && r.final === 'confirmed');
        if (paid[0] && Math.random() * 100 < CANCEL_PCT) await cancelUntilDone({ http, token: buyer.token, deadline, onError: (e) => unexpected.push(e) }, paid[0]);
      }
    };
    await Promise.all(buyers.map((_, b) => runBuyer(b)));
    const loadMs = Date.now() - startedAt;
    say(`${BOOKINGS} booking flows done in ${loadMs} ms`);

    const settle = await waitSettled(pool, SETTLE_CAP_MS, async () => {
      const s = sim.ctx.webhooks.stats();
      return s.waiting === 0 && s.in_flight === 0;
    }, say);
    say(`${settle.settled ? 'settled' : 'NOT settled'} after ${settle.ms} ms: ${JSON.stringify(settle.last)}`);

    const stripe = stripeClient((sim.app.server.address() as AddressInfo).port);
    const piCountBefore = (await stripe.paymentIntents.list({ limit: 100 }).autoPagingToArray({ limit: 10_000 })).length;
    const replay = await replayEveryKey(http, buyers.map((x) => x.token), records);
    const report = await checkInvariants(pool, stripe, records);
    const piCountAfter = (await stripe.paymentIntents.list({ limit: 100 }).autoPagingToArray({ limit: 10_000 })).length;
    await http.close();

    const visa = records.filter((r) => r.paymentMethod === 'pm_card_visa' && r.final === 'confirmed');
    const visaDefinitive = visa.map((r) => r.definitiveMs!);
    const visaFirst = visa.map((r) => r.firstAnswerMs!);
    const pmFinal: Record<string, Record<string, number>> = {};
    for (const r of records) {
      const m = (pmFinal[r.paymentMethod] ??= {});
      m[r.final] = (m[r.final] ?? 0) + 1;
    }
    const health = sim.ctx;
    const summary = {
      seed: SEED,
      buyers: BUYERS,
      booking_flows: BOOKINGS,
      booking_requests_by_client: records.length,
      client_outcomes: tally(records.map((r) => r.final)),
      client_outcomes_by_method: pmFinal,
      first_answers: tally(records.map((r) => r.firstStatus ?? 'none')),
      client_retries: {
        connection_errors_or_timeouts: records.reduce((s, r) => s + r.connErrors, 0),
        server_5xx: records.reduce((s, r) => s + r.serverErrors, 0),
        in_flight_409: records.reduce((s, r) => s + r.inFlight409, 0),
        polls: records.reduce((s, r) => s + r.polls, 0),
      },
      http_5xx_by_status_and_code: http.serverErrors,
      http_no_answer_by_code: http.connectionErrors,
      hold_failures: holdFailures.length,
      ...report.counts,
      simulator: { events: health.store.events.size, held_connections: health.held.size, webhooks: health.webhooks.stats() },
      replayed_keys: replay.replays,
      pis_created_by_replays: piCountAfter - piCountBefore,
      visa_latency_ms: {
        confirmed: visa.length,
        to_definitive: { p50: percentile(visaDefinitive, 50), p99: percentile(visaDefinitive, 99), max: Math.max(0, ...visaDefinitive) },
        to_first_201: { p50: percentile(visaFirst, 50), p99: percentile(visaFirst, 99) },
      },
      durations_ms: { ...timings, load: loadMs, settle: settle.ms, total_test: Date.now() - startedAt },
    };
    say(`SUMMARY ${JSON.stringify(summary, null, 2)}`);
    say(`slowest flows:\n${(await slowest(pool, records, 5)).join('\n')}`);
    const problems = [...report.violations, ...replay.problems, ...unexpected, ...holdFailures];
    if (piCountAfter !== piCountBefore) problems.push(`repeating every key created ${piCountAfter - piCountBefore} new PaymentIntents`);
    if (problems.length) say(`VIOLATIONS (${problems.length}):\n${problems.slice(0, 80).join('\n')}`);

    const open = await openWork(pool);
    expect.soft(open, 'settled: nothing pending, no open attempt, outbox empty').toMatchObject({
      pending_bookings: 0, open_attempts: 0, outbox_open: 0, pending_refunds: 0, unprocessed_webhooks: 0, paying_seats: 0, paying_holds: 0,
    });
    expect.soft(settle.settled && settle.ms <= SETTLE_MS, `settled within ${SETTLE_MS} ms (took ${settle.ms} ms${settle.settled ? '' : ', and still not settled'})`).toBe(true);
    expect.soft(problems).toEqual([]);
    // The bank's chaos (its 5xx, lost answers) is the service's to absorb: an unknown
    // outcome is a pending booking, never a 5xx to the buyer. The service itself runs throughout.
    expect.soft(http.serverErrors, `5xx answers; first ones: ${http.serverErrorSamples.join(' | ')}`).toEqual({});
    // A client gives up after CLIENT_TIMEOUT_MS (and repeats its key); a refused or dropped connection would be the service's fault.
    const dropped = Object.fromEntries(Object.entries(http.connectionErrors).filter(([k]) => k !== 'UND_ERR_HEADERS_TIMEOUT' && k !== 'UND_ERR_BODY_TIMEOUT'));
    expect.soft(dropped, 'exchanges without an answer other than client timeouts').toEqual({});
  }, 600_000);
});
