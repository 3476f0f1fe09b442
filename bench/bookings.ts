// Benchmark: booking latency with pm_card_visa. Buyers hold seats of one show, a seat
// a hold (first, every hold), then C connections pay for them, each taking the next
// hold; we time POST /v1/bookings. Baseline in the same run: the payment step alone — the same
// PaymentIntent create-and-confirm sent straight to the same simulator through the Stripe SDK.
//
// What each booking sends to PostgreSQL is measured, not declared: the service counts
// every statement and commit by origin (boxoffice_db_*_total on /metrics), read before and
// after the window in which only bookings run. The request path is origin "request";
// the background (ticket issuing, the sweeper, the seat feed, the metrics scrape…) is
// counted separately, over the window until every booking's tickets are issued. The
// commits PostgreSQL itself counted (pg_stat_database) over the same window check them.
//
// And what each costs in CPU, per process (service, its payment simulator, the
// database's backends, this bench, the whole machine), over the bookings' window and
// the payment step's, each until the simulator has delivered the webhooks of its
// payments: with every core busy, a p50 at C connections is C over the throughput,
// so the ratio of the two p50s follows the ratio of their CPU.
//
// Then what reading a webhook's PaymentIntent back costs: W signed webhooks for
// those bookings' real PaymentIntents, timed from POST to answer (the event is
// recorded and applied before the answer). Events that claim what the booking
// already recorded need no read-back; events that contradict it (a
// payment_failed for a paid booking) are checked with the provider, which says
// "succeeded", so nothing changes but the read-back is paid. Beside them, the
// bare retrieve round trip through the SDK to the same simulator.
//
//   npm run bench:bookings     BENCH_BOOKINGS=1000 BENCH_CONNECTIONS=16 BENCH_WEBHOOKS=500
//                              BENCH_WARMUP_BOOKINGS=3000 (unmeasured bookings first, and as many
//                              unmeasured payments before the payment step's; 0: none)
//                              BENCH_CONNECTIONS=1 shows the ratio with no queue for the cores
//   BENCH_CPU_PROF=1           profile the service into .bench-out/prof
import Stripe from 'stripe';
import { runBenchmark } from './lib/cleanup.js';
import pg from 'pg';
import { backendCpuMeter, createBenchDatabase } from './lib/db.js';
import { childPids, CpuWindow, machineCpu, ownCpu, processesCpu } from './lib/cpuWindow.js';
import { profileFlags, startService } from './lib/child.js';
import { adminToken, call, closeApiClient, createShow, registerBuyers } from './lib/api.js';
import { Latencies, envNumber, fixed, table } from './lib/stats.js';
import { pgTransactions, scrapeTrips, totalTrips, tripsBetween } from './lib/dbTrips.js';
import { writeSummary } from './lib/summary.js';
import { signatureHeader } from '@boxoffice/paysim';

const say = (s: string) => process.stdout.write(`${s}\n`);
const note = (s: string) => process.stderr.write(`${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Issue 11's goals for the paid booking's success path.
const GOAL_ROUND_TRIPS = 8;
const GOAL_COMMITS = 2;
const GOAL_RATIO = 2.5;
const GOAL_CONNECTIONS = 16;
// pg_stat_database hears from a backend when it goes idle, at most once a second.
const PG_STATS_SETTLE_MS = 1500;

/** Until the simulator has no webhook waiting or in flight (its /_sim/health), at most 60 s. */
async function webhooksDelivered(paysimPort: number): Promise<void> {
  const until = Date.now() + 60_000;
  for (;;) {
    const health = (await call(`http://127.0.0.1:${paysimPort}`, 'GET', '/_sim/health')).body as { webhooks: { waiting: number; in_flight: number } };
    if (health.webhooks.waiting + health.webhooks.in_flight === 0) return;
    if (Date.now() > until) throw new Error(`the simulator still had ${health.webhooks.waiting + health.webhooks.in_flight} webhooks to deliver after 60 s`);
    await sleep(50);
  }
}

runBenchmark(async () => {
  const total = envNumber('BENCH_BOOKINGS', 1000);
  const c = envNumber('BENCH_CONNECTIONS', 16);
  const paysimPort = 20_000 + Math.floor(Math.random() * 20_000);
  const db = await createBenchDatabase();
  const service = await startService({ databaseUrl: db.url, env: { PAYSIM_PORT: String(paysimPort), DB_POOL_SIZE: '20' }, nodeFlags: profileFlags('bookings') });
  note(`service on ${service.baseUrl}, simulator on ${paysimPort}`);
  const token = await adminToken(service.baseUrl);
  // Warm-up first, unmeasured: bookings, and later as many payments before the payment
  // step alone. Node compiles its hottest code only after thousands of calls: with a
  // few hundred warm-up bookings V8's optimizing compiler still takes a visible share
  // of the window (bench/results/2026-12-03-bookings-warmup.md). Both figures are of
  // code that has been running a while, as it has in a service at 10:00.
  const warmN = envNumber('BENCH_WARMUP_BOOKINGS', 3000, { zero: true });
  const wanted = warmN + total;
  const rows = Math.max(20, Math.ceil(wanted / 100));
  const show = await createShow(service.baseUrl, token, { rows, seatsPerRow: 100, per_user_limit: 1000 });
  const seats = show.rows.flatMap((r) => Array.from({ length: show.seatsPerRow }, (_, k) => `${r}${k + 1}`));
  // A buyer may hold at most 1,000 seats of a show (the contract's per_user_limit
  // maximum): enough buyers for every hold, and C workers at a time whatever their number.
  const buyers = await registerBuyers(service.baseUrl, Math.max(c, Math.ceil(wanted / 1000)));
  const cpu = new CpuWindow([
    { name: 'service', read: () => service.cpuSeconds() },
    processesCpu('payment simulator', childPids(service.pid)),
    backendCpuMeter(db.name),
    ownCpu('bench'),
    machineCpu,
  ]);

  /** C workers at once over `count` items, each taking the next. */
  const inParallel = async (count: number, work: (n: number) => Promise<void>) => {
    let next = 0;
    await Promise.all(Array.from({ length: c }, async () => {
      for (let n = next++; n < count; n = next++) await work(n);
    }));
  };

  // Every hold first, so that the measured window has bookings only: the warm-up's,
  // then the measured ones'. Seat i is held by buyer i mod buyers.
  const holds: { buyer: number; seat: number; holdId: string }[] = [];
  let held = 0;
  await inParallel(wanted, async (i) => {
    const buyer = i % buyers.length;
    const hold = await call(service.baseUrl, 'POST', `/v1/shows/${show.showId}/holds`, { body: { seats: [seats[i]] }, token: buyers[buyer]!.token });
    if (hold.status !== 201) throw new Error(`hold: ${hold.status} ${hold.text}`);
    holds[i] = { buyer, seat: i, holdId: hold.body.hold_id };
    if (++held % 500 === 0) note(`  ${held}/${wanted} holds`);
  });
  const warmHolds = holds.slice(0, warmN);
  const measuredHolds = holds.slice(warmN, warmN + total);

  /** C workers pay for the holds, each taking the next. */
  const bookAll = (list: typeof holds, each: (ms: number, answer: Awaited<ReturnType<typeof call>>) => void) => inParallel(list.length, async (n) => {
    const h = list[n]!;
    const t0 = performance.now();
    const booking = await call(service.baseUrl, 'POST', '/v1/bookings', {
      body: { hold_id: h.holdId, payment_method: 'pm_card_visa' }, token: buyers[h.buyer]!.token, headers: { 'idempotency-key': `bench-${h.seat}` },
    });
    each(performance.now() - t0, booking);
  });
  if (warmN > 0) {
    await bookAll(warmHolds, (_, booking) => { if (booking.status !== 201) throw new Error(`warm-up booking: ${booking.status} ${booking.text}`); });
    note(`  ${warmN} warm-up bookings`);
  }

  const before = await scrapeTrips(service.baseUrl);
  await sleep(PG_STATS_SETTLE_MS);
  const pgBefore = await pgTransactions(db.name);

  const ours = new Latencies();
  const statuses = new Map<string, number>();
  let done = 0;
  const cpuBeforeBookings = await cpu.read();
  const started = Date.now();
  await bookAll(measuredHolds, (ms, booking) => {
    ours.add(ms);
    const key = `${booking.status} ${booking.body?.status ?? booking.body?.code}`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
    if (++done % 200 === 0) note(`  ${done}/${total} bookings`);
  });
  const seconds = (Date.now() - started) / 1000;
  await webhooksDelivered(paysimPort);
  const cpuAfterBookings = await cpu.read();
  const afterBookings = await scrapeTrips(service.baseUrl);
  const confirmed = statuses.get('201 confirmed') ?? 0;

  // The background's share: until every confirmed booking's tickets are issued.
  // One connection of the bench's own (its start and each poll are commits PostgreSQL counts too).
  const poller = new pg.Client({ connectionString: db.url });
  await poller.connect();
  const ticketsQueued = async () => Number((await poller.query<{ n: string }>(
    "select count(*) as n from outbox where topic = 'ticket.issue' and done_at is null")).rows[0]!.n);
  const waitStarted = Date.now();
  let polls = 1;
  for (; (await ticketsQueued()) > 0; polls++) {
    if (Date.now() - waitStarted > 120_000) throw new Error('tickets were not all issued within 120 s');
    await sleep(100);
  }
  await poller.end();
  const afterTickets = await scrapeTrips(service.baseUrl);
  const ticketSeconds = (Date.now() - started) / 1000;
  await sleep(PG_STATS_SETTLE_MS);
  const pgAfter = await pgTransactions(db.name);

  const stripe = new Stripe('sk_test_sim', { host: '127.0.0.1', port: paysimPort, protocol: 'http', maxNetworkRetries: 0 });

  // The payment step alone, at the same concurrency, against the same simulator:
  // as many unmeasured first as the bookings had (this process's SDK path is cold
  // until then), then the measured ones.
  const payAll = async (from: number, count: number, each: (ms: number) => void) => {
    await inParallel(count, async (i) => {
      const n = from + i;
      const t0 = performance.now();
      await stripe.paymentIntents.create(
        { amount: 1000, currency: 'eur', payment_method: 'pm_card_visa', confirm: true, automatic_payment_methods: { enabled: true, allow_redirects: 'never' }, metadata: { n: String(n) } },
        { idempotencyKey: `raw-${n}` },
      );
      each(performance.now() - t0);
    });
    await webhooksDelivered(paysimPort);
  };
  if (warmN > 0) {
    await payAll(0, warmN, () => {});
    note(`  ${warmN} warm-up payments`);
  }
  const raw = new Latencies();
  const cpuBeforePayments = await cpu.read();
  await payAll(warmN, total, (ms) => raw.add(ms));
  const cpuAfterPayments = await cpu.read();
  // The webhook path, with and without the read-back, and the bare retrieve.
  const webhooks = Math.min(envNumber('BENCH_WEBHOOKS', 500), total);
  const paid = (await stripe.paymentIntents.list({ limit: 100 }).autoPagingToArray({ limit: 10_000 }))
    .filter((pi) => pi.metadata.attempt_id && pi.status === 'succeeded').slice(0, webhooks);
  const timeWebhooks = async (type: string, tag: string): Promise<{ lat: Latencies; answers: Map<number, number> }> => {
    const lat = new Latencies();
    const answers = new Map<number, number>();
    await inParallel(paid.length, async (n) => {
      const pi = paid[n]!;
      const rawEvent = JSON.stringify({ id: `evt_bench_${tag}_${pi.id}`, object: 'event', type, created: Math.floor(Date.now() / 1000), data: { object: pi } });
      const t0 = performance.now();
      const r = await call(service.baseUrl, 'POST', '/v1/payments/webhook', {
        raw: rawEvent, headers: { 'stripe-signature': signatureHeader(rawEvent, 'whsec_sim') },
      });
      lat.add(performance.now() - t0);
      answers.set(r.status, (answers.get(r.status) ?? 0) + 1);
    });
    return { lat, answers };
  };
  const agreeing = await timeWebhooks('payment_intent.succeeded', 'agree');
  const readBack = await timeWebhooks('payment_intent.payment_failed', 'readback');
  const retrieve = new Latencies();
  await inParallel(paid.length, async (n) => {
    const t0 = performance.now();
    await stripe.paymentIntents.retrieve(paid[n]!.id);
    retrieve.add(performance.now() - t0);
  });
  const stillConfirmed = (await Promise.all(paid.slice(0, 20).map(async (pi) => {
    const b = await call(service.baseUrl, 'GET', `/v1/bookings/${pi.metadata.booking_id}`, { token });
    return b.body?.status === 'confirmed';
  }))).every(Boolean);

  await closeApiClient();
  await service.stop();
  await db.drop();

  const a = ours.summary();
  const b = raw.summary();
  say(`bookings: ${a.count} in ${fixed(seconds)} s at ${c} connections; answers ${JSON.stringify(Object.fromEntries(statuses))}`);
  say(table(['target', 'count', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'], [
    ['POST /v1/bookings (pm_card_visa)', String(a.count), fixed(a.p50, 2), fixed(a.p90, 2), fixed(a.p99, 2), fixed(a.max, 1)],
    ['PaymentIntent alone (SDK -> simulator)', String(b.count), fixed(b.p50, 2), fixed(b.p90, 2), fixed(b.p99, 2), fixed(b.max, 1)],
  ]));
  const ratio = a.p50 / b.p50;
  const ratioMet = ratio <= GOAL_RATIO;
  say(`booking p50 / payment-step p50: ${fixed(ratio, 2)} (goal <= ${GOAL_RATIO} at ${GOAL_CONNECTIONS} connections: ${ratioMet ? 'met' : 'missed'}${c === GOAL_CONNECTIONS ? '' : `; this run used ${c}`})`);
  say(`booking p99 / payment-step p99: ${fixed(a.p99 / b.p99, 2)}`);

  // What each costs in CPU.
  const perBookingCpu = cpu.perOperation(cpuBeforeBookings, cpuAfterBookings, a.count);
  const perPaymentCpu = cpu.perOperation(cpuBeforePayments, cpuAfterPayments, b.count);
  const ms = (v: number | null | undefined) => (v == null ? '-' : fixed(v, 2));
  say('');
  say('CPU per operation, ms (user + system, from /proc): over the bookings above, per booking; over the payment step alone, per payment; each window until the simulator had delivered its payments\' webhooks (which the service records)');
  say(table(['process', 'per booking', 'per payment step'], cpu.meters.map((m) => [m.name === 'machine' ? 'machine (every process)' : m.name, ms(perBookingCpu.get(m.name)), ms(perPaymentCpu.get(m.name))])));
  const machineBooking = perBookingCpu.get('machine');
  const machinePayment = perPaymentCpu.get('machine');
  const cpuRatio = machineBooking != null && machinePayment ? machineBooking / machinePayment : null;
  if (cpuRatio !== null) say(`machine CPU per booking / per payment step: ${fixed(cpuRatio, 2)} (booking p50 / payment-step p50 above: ${fixed(ratio, 2)})`);

  // What went to PostgreSQL, measured.
  const request = tripsBetween(before, afterBookings).get('request') ?? { roundTrips: 0, commits: 0, seconds: 0 };
  const window = tripsBetween(before, afterTickets);
  const perBooking = (n: number) => fixed(n / a.count, 2);
  const tripRows = [...window].sort(([x], [y]) => (x === 'request' ? -1 : y === 'request' ? 1 : x.localeCompare(y))).map(([origin, t]) => {
    const r = origin === 'request' ? request : t;
    return [origin === 'request' ? 'request path (POST /v1/bookings)' : origin, String(r.roundTrips), String(r.commits), perBooking(r.roundTrips), perBooking(r.commits), fixed((1000 * r.seconds) / a.count, 2)];
  });
  const rt = request.roundTrips / a.count;
  const cm = request.commits / a.count;
  say('');
  say(`database work, counted by the service (/metrics boxoffice_db_*_total by origin): the request path over the ${fixed(seconds)} s of bookings; the background over the ${fixed(ticketSeconds)} s until every ticket was issued (timers run whatever the load: sweeper, seat feed, hold tally…)`);
  say(table(['origin', 'round trips', 'commits', 'round trips / booking', 'commits / booking', 'db ms / booking'], tripRows));
  say(`request path per booking: ${fixed(rt, 2)} round trips (goal <= ${GOAL_ROUND_TRIPS}: ${rt <= GOAL_ROUND_TRIPS ? 'met' : 'missed'}), ${fixed(cm, 2)} commits (goal <= ${GOAL_COMMITS}: ${cm <= GOAL_COMMITS ? 'met' : 'missed'}); ${fixed((1000 * request.seconds) / a.count, 2)} ms per booking waiting on the database (pool wait included, summed over its statements)`);
  const ticketsPer = window.get('tickets');
  if (ticketsPer) say(`ticket issuing per booking: ${perBooking(ticketsPer.roundTrips)} round trips, ${perBooking(ticketsPer.commits)} commits`);
  const counted = totalTrips(window).commits;
  say(`check: PostgreSQL counted ${pgAfter.commits - pgBefore.commits} commits and ${pgAfter.rollbacks - pgBefore.rollbacks} rollbacks in the bench database over the window (pg_stat_database; ${polls + 1} of them the bench's own connection and polls, and each connection the pool opened counts one); the service counted ${counted} commits`);

  const wa = agreeing.lat.summary();
  const wr = readBack.lat.summary();
  const rtr = retrieve.summary();
  say('');
  say(`webhooks: ${paid.length} per kind at ${c} connections; answers agreeing ${JSON.stringify(Object.fromEntries(agreeing.answers))}, read back ${JSON.stringify(Object.fromEntries(readBack.answers))}; bookings still confirmed after the contradicting events: ${stillConfirmed}`);
  say(table(['target', 'count', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'], [
    ['webhook, claim already recorded (no read-back)', String(wa.count), fixed(wa.p50, 2), fixed(wa.p90, 2), fixed(wa.p99, 2), fixed(wa.max, 1)],
    ['webhook, checked with the provider (read-back)', String(wr.count), fixed(wr.p50, 2), fixed(wr.p90, 2), fixed(wr.p99, 2), fixed(wr.max, 1)],
    ['PaymentIntent retrieve alone (SDK -> simulator)', String(rtr.count), fixed(rtr.p50, 2), fixed(rtr.p90, 2), fixed(rtr.p99, 2), fixed(rtr.max, 1)],
  ]));
  say(`read-back cost per webhook, p50: ${fixed(wr.p50 - wa.p50, 2)} ms (bare retrieve p50 ${fixed(rtr.p50, 2)} ms)`);

  const bench = 'bookings';
  const payment = 'PaymentIntent alone (SDK -> simulator)';
  writeSummary([
    { bench, figure: `booking p50 at C=${c}`, value: a.p50, unit: 'ms', baseline: b.p50, baseline_label: `${payment} p50`, goal: `ratio <= ${GOAL_RATIO} at C=${GOAL_CONNECTIONS}`, ...(c === GOAL_CONNECTIONS ? { met: ratioMet } : {}) },
    { bench, figure: `booking p99 at C=${c}`, value: a.p99, unit: 'ms', baseline: b.p99, baseline_label: `${payment} p99` },
    ...(cpuRatio !== null ? [{ bench, figure: 'machine CPU per booking', value: machineBooking!, unit: 'ms', baseline: machinePayment!, baseline_label: 'machine CPU per payment step alone' }] : []),
    { bench, figure: 'round trips per booking (request path)', value: rt, unit: 'statements', baseline: null, baseline_label: '-', goal: `<= ${GOAL_ROUND_TRIPS}`, met: rt <= GOAL_ROUND_TRIPS },
    { bench, figure: 'commits per booking (request path)', value: cm, unit: 'commits', baseline: null, baseline_label: '-', goal: `<= ${GOAL_COMMITS}`, met: cm <= GOAL_COMMITS },
    { bench, figure: 'confirmed bookings', value: confirmed, unit: 'bookings', baseline: a.count, baseline_label: 'bookings sent', goal: 'all confirmed', met: confirmed === a.count },
    { bench, figure: 'webhook with read-back p50', value: wr.p50, unit: 'ms', baseline: wa.p50, baseline_label: 'webhook without read-back p50' },
  ]);
});
