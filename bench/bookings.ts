// Benchmark: booking latency with pm_card_visa. C buyers each hold one seat and
// pay for it, over and over, on a 2,000-seat show; we time POST /v1/bookings.
// Baseline in the same run: the payment step alone — the same PaymentIntent
// create-and-confirm sent straight to the same simulator through the Stripe SDK.
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
import Stripe from 'stripe';
import { runBenchmark } from './lib/cleanup.js';
import { createBenchDatabase } from './lib/db.js';
import { startService } from './lib/child.js';
import { adminToken, call, closeApiClient, createShow, registerBuyers } from './lib/api.js';
import { Latencies, envNumber, fixed, table } from './lib/stats.js';
import { signatureHeader } from '../src/payments/simulator/signature.js';

const say = (s: string) => process.stdout.write(`${s}\n`);
const note = (s: string) => process.stderr.write(`${s}\n`);

runBenchmark(async () => {
  const total = envNumber('BENCH_BOOKINGS', 1000);
  const c = envNumber('BENCH_CONNECTIONS', 16);
  const paysimPort = 20_000 + Math.floor(Math.random() * 20_000);
  const db = await createBenchDatabase();
  const service = await startService({ databaseUrl: db.url, env: { PAYSIM_PORT: String(paysimPort), DB_POOL_SIZE: '20' } });
  note(`service on ${service.baseUrl}, simulator on ${paysimPort}`);
  const token = await adminToken(service.baseUrl);
  const show = await createShow(service.baseUrl, token, { rows: 20, seatsPerRow: 100, per_user_limit: 1000 });
  const seats = show.rows.flatMap((r) => Array.from({ length: show.seatsPerRow }, (_, k) => `${r}${k + 1}`));
  const buyers = await registerBuyers(service.baseUrl, c);

  const ours = new Latencies();
  const statuses = new Map<string, number>();
  let next = 0;
  const started = Date.now();
  await Promise.all(buyers.map(async (b) => {
    for (let i = next++; i < Math.min(total, seats.length); i = next++) {
      const hold = await call(service.baseUrl, 'POST', `/v1/shows/${show.showId}/holds`, { body: { seats: [seats[i]] }, token: b.token });
      if (hold.status !== 201) throw new Error(`hold: ${hold.status} ${hold.text}`);
      const t0 = performance.now();
      const booking = await call(service.baseUrl, 'POST', '/v1/bookings', {
        body: { hold_id: hold.body.hold_id, payment_method: 'pm_card_visa' }, token: b.token, headers: { 'idempotency-key': `bench-${i}` },
      });
      ours.add(performance.now() - t0);
      const key = `${booking.status} ${booking.body?.status ?? booking.body?.code}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      if (i % 200 === 0) note(`  ${i}/${total} bookings`);
    }
  }));
  const seconds = (Date.now() - started) / 1000;

  // The payment step alone, at the same concurrency, against the same simulator.
  const stripe = new Stripe('sk_test_sim', { host: '127.0.0.1', port: paysimPort, protocol: 'http', maxNetworkRetries: 0 });
  const raw = new Latencies();
  let k = 0;
  await Promise.all(Array.from({ length: c }, async () => {
    while (k < total) {
      const n = k++;
      const t0 = performance.now();
      await stripe.paymentIntents.create(
        { amount: 1000, currency: 'eur', payment_method: 'pm_card_visa', confirm: true, automatic_payment_methods: { enabled: true, allow_redirects: 'never' }, metadata: { n: String(n) } },
        { idempotencyKey: `raw-${n}` },
      );
      raw.add(performance.now() - t0);
    }
  }));
  // The webhook path, with and without the read-back, and the bare retrieve.
  const webhooks = Math.min(envNumber('BENCH_WEBHOOKS', 500), total);
  const paid = (await stripe.paymentIntents.list({ limit: 100 }).autoPagingToArray({ limit: 10_000 }))
    .filter((pi) => pi.metadata.attempt_id && pi.status === 'succeeded').slice(0, webhooks);
  const timeWebhooks = async (type: string, tag: string): Promise<{ lat: Latencies; answers: Map<number, number> }> => {
    const lat = new Latencies();
    const answers = new Map<number, number>();
    let w = 0;
    await Promise.all(Array.from({ length: c }, async () => {
      while (w < paid.length) {
        const pi = paid[w++]!;
        const rawEvent = JSON.stringify({ id: `evt_bench_${tag}_${pi.id}`, object: 'event', type, created: Math.floor(Date.now() / 1000), data: { object: pi } });
        const t0 = performance.now();
        const r = await call(service.baseUrl, 'POST', '/v1/payments/webhook', {
          raw: rawEvent, headers: { 'stripe-signature': signatureHeader(rawEvent, 'whsec_sim') },
        });
        lat.add(performance.now() - t0);
        answers.set(r.status, (answers.get(r.status) ?? 0) + 1);
      }
    }));
    return { lat, answers };
  };
  const agreeing = await timeWebhooks('payment_intent.succeeded', 'agree');
  const readBack = await timeWebhooks('payment_intent.payment_failed', 'readback');
  const retrieve = new Latencies();
  let r = 0;
  await Promise.all(Array.from({ length: c }, async () => {
    while (r < paid.length) {
      const pi = paid[r++]!;
      const t0 = performance.now();
      await stripe.paymentIntents.retrieve(pi.id);
      retrieve.add(performance.now() - t0);
    }
  }));
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
  say(`booking p50 / payment-step p50: ${fixed(a.p50 / b.p50, 2)}; the rest is the booking's own work (4 database statements: the key claimed, payment entered, the booking confirmed, the answer stored)`);
  const wa = agreeing.lat.summary();
  const wr = readBack.lat.summary();
  const rt = retrieve.summary();
  say('');
  say(`webhooks: ${paid.length} per kind at ${c} connections; answers agreeing ${JSON.stringify(Object.fromEntries(agreeing.answers))}, read back ${JSON.stringify(Object.fromEntries(readBack.answers))}; bookings still confirmed after the contradicting events: ${stillConfirmed}`);
  say(table(['target', 'count', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'], [
    ['webhook, claim already recorded (no read-back)', String(wa.count), fixed(wa.p50, 2), fixed(wa.p90, 2), fixed(wa.p99, 2), fixed(wa.max, 1)],
    ['webhook, checked with the provider (read-back)', String(wr.count), fixed(wr.p50, 2), fixed(wr.p90, 2), fixed(wr.p99, 2), fixed(wr.max, 1)],
    ['PaymentIntent retrieve alone (SDK -> simulator)', String(rt.count), fixed(rt.p50, 2), fixed(rt.p90, 2), fixed(rt.p99, 2), fixed(rt.max, 1)],
  ]));
  say(`read-back cost per webhook, p50: ${fixed(wr.p50 - wa.p50, 2)} ms (bare retrieve p50 ${fixed(rt.p50, 2)} ms)`);
});
