// Shared by the tests that post webhooks to a running service (not a test file):
// a service whose workers are off and whose simulator delivers no webhooks unless
// a test asks, so that only the events a test signs itself can change anything.
import Stripe from 'stripe';
import type { TestService } from '../support/service.js';
import type { HttpAnswer } from '../support/http.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { signatureHeader } from '@boxoffice/paysim';
import { WEBHOOK_SECRET } from './simulatorHarness.js';
import { expectStatus, holdSeats, newKey, paymentIntentsFor, postBooking, retrying, startService } from '../bookings/helpers.js';

export { WEBHOOK_SECRET };

export interface WebhookWorld {
  t: TestService;
  showId: string;
  buyer: Buyer;
  /** The next free seats of the show. */
  take(n: number): string[];
}

export async function startWebhookWorld(): Promise<WebhookWorld> {
  const t = await startService({ payments: {}, workers: false, config: { paymentTimeoutMs: 1000 } });
  t.simulator!.ctx.webhooks.setEndpoint(null);
  const { showId, seats } = await retrying('creating the show', () => createShow(t, { rows: 4, seatsPerRow: 20, per_user_limit: 80 }));
  const [buyer] = (await retrying('registering a buyer', () => registerBuyers(t, 1))) as [Buyer];
  let next = 0;
  return { t, showId, buyer, take: (n) => { const s = seats.slice(next, next + n); next += n; return s; } };
}

/** Unix seconds now. */
export const unixNow = () => Math.floor(Date.now() / 1000);

export function sign(raw: string, opts: { secret?: string; at?: number } = {}): string {
  return signatureHeader(raw, opts.secret ?? WEBHOOK_SECRET, opts.at ?? unixNow());
}

/** POST /v1/payments/webhook with exactly these bytes (and a Stripe-Signature when given). */
export function postWebhook(t: TestService, raw: string, signature?: string): Promise<HttpAnswer> {
  return t.http.send('POST', '/v1/payments/webhook', {
    raw, headers: { 'content-type': 'application/json', ...(signature === undefined ? {} : { 'stripe-signature': signature }) },
  });
}

let eventSeq = 0;
/** An event body in Stripe's shape around `object`. */
export function eventBody(type: string, object: object): { id: string; raw: string } {
  const id = `evt_test_${process.pid}_${Date.now()}_${++eventSeq}`;
  const raw = JSON.stringify({
    id, object: 'event', api_version: '2026-10-28.endive', created: unixNow(), livemode: false, pending_webhooks: 1,
    request: { id: null, idempotency_key: null }, type, data: { object },
  });
  return { id, raw };
}

/** Holds seats and pays with `method`; the booking as answered, and the PaymentIntent the simulator made for it. */
export async function bookWith(w: WebhookWorld, method: string, seats = 1) {
  const holdId = await holdSeats(w.t, w.showId, w.take(seats), w.buyer.token);
  const r = await postBooking(w.t, { hold_id: holdId, payment_method: method }, w.buyer.token, newKey(method));
  expectStatus(r, 201);
  const [pi] = paymentIntentsFor(w.t, { bookingId: r.body.booking_id });
  if (!pi) throw new Error(`no PaymentIntent for ${r.body.booking_id}`);
  return { booking: r.body as { booking_id: string; hold_id: string; status: string; amount: number }, pi };
}

/** What the database holds about a booking: its status, attempt, seats, tickets and refund. */
export async function bookingState(t: TestService, bookingId: string) {
  const db = t.service.ctx.db;
  const one = async <T>(sql: string) => (await db.query<T>(sql, [bookingId])).rows;
  const [b] = await one<{ status: string }>('select status from bookings where id = $1');
  const [a] = await one<{ status: string; provider_payment_id: string | null }>('select status, provider_payment_id from payment_attempts where booking_id = $1');
  const seats = await one<{ status: string }>(
    'select s.status from show_seats s join bookings b on b.show_id = s.show_id and s.hold_id = b.hold_id where b.id = $1 order by s.seat_id');
  const tickets = await one<{ id: string }>('select id from tickets where booking_id = $1');
  const refunds = await one<{ status: string; reason: string; payment_intent: string }>('select status, reason, payment_intent from refunds where booking_id = $1');
  return { booking: b?.status, attempt: a, seats: seats.map((s) => s.status), tickets: tickets.length, refunds };
}

export async function webhookRow(t: TestService, id: string) {
  const r = await t.service.ctx.db.query<{ processed: boolean }>('select processed_at is not null as processed from webhook_events where id = $1', [id]);
  return r.rows[0] ?? null;
}

export async function webhookRowCount(t: TestService): Promise<number> {
  return (await t.service.ctx.db.query<{ n: number }>('select count(*)::int as n from webhook_events')).rows[0]!.n;
}

function simulatorPort(t: TestService): number {
  const a = t.simulator!.app.server.address();
  if (!a || typeof a === 'string') throw new Error('no simulator address');
  return a.port;
}

/** A Stripe client on the test's simulator (to act as the provider itself). */
export function simulatorClient(t: TestService): Stripe {
  return new Stripe('sk_test_sim', { host: '127.0.0.1', port: simulatorPort(t), protocol: 'http', maxNetworkRetries: 0 });
}

/** Changes the simulator's chaos settings (POST /_sim/chaos). */
export async function setChaos(t: TestService, patch: object): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${simulatorPort(t)}/_sim/chaos`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(patch),
  });
  if (!res.ok) throw new Error(`chaos settings refused: ${res.status}`);
}

/** Warnings a use-case logged (the worker's logger, captured). */
export function capturedLog() {
  const warnings: { o: object; m: string }[] = [];
  return { warnings, warn: (o: object, m: string) => { warnings.push({ o, m }); } };
}
