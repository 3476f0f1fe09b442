// Provider webhooks: another way to learn a payment's outcome. A webhook is a
// hint, never proof: its signature says only that someone holding the secret sent
// it. Recorded once per event id, then the PaymentIntent (or refund) it names is
// read back from the provider, and only what the provider says is applied,
// through the same path as the booking request and the reconciler — so forged,
// duplicated, late and reordered events change nothing they should not.
import { validationFailed } from '../domain/errors.js';
import { markProcessed, settleIfRepeated, unprocessedEvents, type PaymentClaim, type WebhookEventRow } from '../db/webhooks.js';
import { findAttempt, findRefund, markRefundSucceeded, type AttemptRow } from '../db/payments.js';
import type { ProviderPaymentIntent } from '../payments/provider.js';
import type { Database } from '../db/client.js';
import { applyPaymentOutcome } from './bookings.js';
import type { Context } from './context.js';

export type Log = { warn: (o: object, m: string) => void };

interface EventObject {
  id?: unknown;
  metadata?: Record<string, unknown> | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The signed text as an event: an object with an id, a type and data.object; anything else is a 400. */
export function parseProviderEvent(text: string): WebhookEventRow {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw validationFailed('the signed body is not JSON', [{ path: 'body', message: (err as Error).message }]);
  }
  const errors: { path: string; message: string }[] = [];
  if (!isObject(body)) throw validationFailed('the signed body is not an event', [{ path: '/', message: 'must be an object' }]);
  if (typeof body.id !== 'string' || body.id === '') errors.push({ path: '/id', message: 'must be a non-empty string' });
  if (typeof body.type !== 'string' || body.type === '') errors.push({ path: '/type', message: 'must be a non-empty string' });
  if (!isObject(body.data) || !isObject(body.data.object)) errors.push({ path: '/data/object', message: 'must be an object' });
  if (errors.length) throw validationFailed('the signed body is not an event', errors);
  return { id: body.id as string, type: body.type as string, payload: body };
}

const metadataOf = (o: EventObject, key: string): string | null => {
  const v = isObject(o.metadata) ? o.metadata[key] : undefined;
  return typeof v === 'string' ? v : null;
};

function ignore(ctx: Context, log: Log, e: WebhookEventRow, reason: 'provider_missing' | 'mismatch', detail: object): void {
  ctx.metrics.webhookEventsIgnored.inc({ reason });
  log.warn({ event: 'webhook.ignored', event_id: e.id, type: e.type, reason, ...detail }, 'webhook event does not match the provider\'s record; ignored');
}

function belongsTo(pi: ProviderPaymentIntent, a: AttemptRow): boolean {
  return pi.metadata.attempt_id === a.id && pi.metadata.booking_id === a.booking_id
    && pi.amount === Number(a.amount) && pi.currency.toLowerCase() === a.currency.toLowerCase();
}

async function applyPaymentEvent(ctx: Context, db: Database, e: WebhookEventRow, object: EventObject, log: Log): Promise<void> {
  const attemptId = metadataOf(object, 'attempt_id');
  const attempt = attemptId ? await findAttempt(db, attemptId) : null;
  if (!attempt) return; // not one of ours
  // An event that claims what we already recorded cannot change anything: no read-back.
  const claimed = e.type === 'payment_intent.succeeded' ? 'succeeded' : 'failed';
  if (attempt.status === claimed) return;
  const pi = typeof object.id === 'string' && object.id !== '' ? await ctx.payments.retrievePaymentIntent(object.id, ctx.config.paymentTimeoutMs) : null;
  if (!pi) return ignore(ctx, log, e, 'provider_missing', { attempt_id: attempt.id, payment_intent: object.id });
  if (!belongsTo(pi, attempt)) return ignore(ctx, log, e, 'mismatch', { attempt_id: attempt.id, payment_intent: pi.id });
  // Only a definitive status is applied: the provider adapter says which (outcomeOf in src/payments/provider.ts).
  if (pi.outcome.kind !== 'unknown') await applyPaymentOutcome(ctx, attempt.id, pi.outcome);
}

async function applyRefundEvent(ctx: Context, db: Database, e: WebhookEventRow, object: EventObject, log: Log): Promise<void> {
  const refundId = metadataOf(object, 'refund_id');
  const refund = refundId ? await findRefund(db, refundId) : null;
  if (!refund || refund.status !== 'pending') return;
  const r = typeof object.id === 'string' && object.id !== '' ? await ctx.payments.retrieveRefund(object.id, ctx.config.paymentTimeoutMs) : null;
  if (!r) return ignore(ctx, log, e, 'provider_missing', { refund_id: refund.id, provider_refund: object.id });
  if (r.metadata.refund_id !== refund.id || r.paymentIntentId !== refund.payment_intent || r.amount !== Number(refund.amount)) {
    return ignore(ctx, log, e, 'mismatch', { refund_id: refund.id, provider_refund: r.id });
  }
  if (r.status === 'succeeded') await markRefundSucceeded(db, refund.id, r.id);
}

/** Applies one recorded event; throws when the provider could not be asked (the event stays unprocessed). */
async function apply(ctx: Context, db: Database, e: WebhookEventRow, log: Log): Promise<void> {
  const object = (e.payload as { data?: { object?: EventObject } }).data?.object;
  if (!isObject(object)) return;
  if (e.type === 'payment_intent.succeeded' || e.type === 'payment_intent.payment_failed') await applyPaymentEvent(ctx, db, e, object, log);
  else if (e.type === 'refund.created' || e.type === 'refund.updated') await applyRefundEvent(ctx, db, e, object, log);
}

/**
 * The inventory database an event belongs on: its PaymentIntent's show (metadata),
 * else the attempt or refund its metadata names; an event naming none of ours, the first.
 */
async function homeOf(ctx: Context, e: WebhookEventRow): Promise<Database> {
  const object = (e.payload as { data?: { object?: EventObject } }).data?.object;
  const showId = isObject(object) ? metadataOf(object, 'show_id') : null;
  if (showId) return ctx.inventory.ofShow(showId).catch(() => ctx.inventory.all()[0]!);
  const record = isObject(object) ? metadataOf(object, 'attempt_id') ?? metadataOf(object, 'refund_id') : null;
  return record ? ctx.inventory.ofRecord(record) : ctx.inventory.all()[0]!;
}

/** Applies and marks processed; a provider that could not be asked leaves it for applyLeftoverEvents. */
async function applyOnce(ctx: Context, db: Database, e: WebhookEventRow, log: Log): Promise<boolean> {
  try {
    await apply(ctx, db, e, log);
  } catch (err) {
    log.warn({ err, event_id: e.id, type: e.type }, 'webhook event not applied yet; the worker retries it');
    return false;
  }
  await markProcessed(db, e.id);
  return true;
}

/**
 * How long an event that arrived while its booking request still waits for the
 * provider gives that request to record the same answer, before it is read back and
 * applied itself. The provider sends the event as it answers the request, so the two
 * usually arrive together, and the request records the answer in one statement
 * (behind the purchase limit's queue, at most half a second). A request whose answer
 * was lost keeps waiting (up to PAYMENT_TIMEOUT_MS): then the event confirms the
 * booking after this pause.
 */
export const AWAITED_EVENT_PAUSE_MS = 1000;
/** Events waiting out that pause at once, per instance; beyond it, an event is applied at once. */
export const AWAITED_EVENTS_MAX = 10_000;

/**
 * Records a verified body as an event and applies it. Returns false for a duplicate
 * delivery. The usual payment event repeats what the booking request already learnt
 * from the provider: recorded as processed in the same statement, nothing to apply.
 * One that arrives while the request is still recording that answer looks once more
 * after a pause (one statement) rather than reading the PaymentIntent back and racing
 * the request for the booking's row lock; the provider is answered meanwhile.
 */
export async function receiveProviderEvent(ctx: Context, signedText: string, log: Log): Promise<boolean> {
  const e = parseProviderEvent(signedText);
  const db = await homeOf(ctx, e);
  const claim = paymentClaim(e);
  const state = await ctx.eventRecords.record(db, e, claim);
  if (state === 'duplicate') {
    ctx.metrics.webhookEvents.inc({ path: 'duplicate' });
    return false;
  }
  if (state === 'settled') {
    ctx.metrics.webhookEvents.inc({ path: 'settled' });
    return true;
  }
  if (state === 'awaited' && claim && ctx.awaitedEvents.later(() => settleAfterPause(ctx, db, e, claim, log))) return true;
  await readBack(ctx, db, e, log);
  return true;
}

/** An event that claims something new (or any event not about a payment): read back from the provider where it names ours, and applied. */
async function readBack(ctx: Context, db: Database, e: WebhookEventRow, log: Log): Promise<void> {
  ctx.metrics.webhookEvents.inc({ path: 'read_back' });
  await applyOnce(ctx, db, e, log);
}

/** After the pause: settled when the request recorded the claimed status, else read back and applied; a failure leaves it to the worker. */
async function settleAfterPause(ctx: Context, db: Database, e: WebhookEventRow, claim: PaymentClaim, log: Log): Promise<void> {
  try {
    if (await settleIfRepeated(db, e.id, claim)) {
      ctx.metrics.webhookEvents.inc({ path: 'settled_after_pause' });
      return;
    }
    await readBack(ctx, db, e, log);
  } catch (err) {
    log.warn({ err, event_id: e.id, type: e.type }, 'webhook event not settled after its pause; the worker applies it');
  }
}

/** What a payment event claims about which attempt, or null for any other event. */
function paymentClaim(e: WebhookEventRow): PaymentClaim | null {
  if (e.type !== 'payment_intent.succeeded' && e.type !== 'payment_intent.payment_failed') return null;
  const object = (e.payload as { data?: { object?: EventObject } }).data?.object;
  const attemptId = isObject(object) ? metadataOf(object, 'attempt_id') : null;
  return attemptId ? { attemptId, status: e.type === 'payment_intent.succeeded' ? 'succeeded' : 'failed' } : null;
}

/** Worker pass: events recorded but not applied (the instance died, or the provider could not be asked). */
export async function applyLeftoverEvents(ctx: Context, db: Database, log: Log): Promise<number> {
  const leftovers = await unprocessedEvents(db, 10, 50);
  let applied = 0;
  for (const e of leftovers) if (await applyOnce(ctx, db, e, log)) applied++;
  return applied;
}
