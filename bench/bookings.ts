// Benchmark: booking latency with pm_card_visa. C buyers each hold one seat and
// pay for it, over and over, on a 2,000-seat show; we time POST /v1/bookings.
// Baseline in the same run: the payment step alone — the same PaymentIntent
// create-and-confirm sent straight to the same simulator through the Stripe SDK.
//
//   npm run bench:bookings     BENCH_BOOKINGS=1000 BENCH_CONNECTIONS=16
import Stripe from 'stripe';
import { runBenchmark } from './lib/cleanup.js';
import { createBenchDatabase } from './lib/db.js';
import { startService } from './lib/child.js';
import { adminToken, call, closeApiClient, createShow, registerBuyers } from './lib/api.js';
import { Latencies, envNumber, fixed, table } from './lib/stats.js';

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
  say(`booking p50 / payment-step p50: ${fixed(a.p50 / b.p50, 2)}; the rest is the booking's own work (two short transactions, the idempotency record)`);
});
