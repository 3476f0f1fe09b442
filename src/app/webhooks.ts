// Provider webhooks: another way to learn a payment's outcome. Recorded once per
// event id, then applied through the same path as the booking request and the
// reconciler, so duplicates, late and reordered deliveries change nothing.
import { markProcessed, recordEvent, unprocessedEvents, type WebhookEventRow } from '../db/webhooks.js';
import { findAttempt, findRefund, markRefundSucceeded } from '../db/payments.js';
import { applyPaymentOutcome } from './payments.js';
import type { Context } from './context.js';

interface ProviderObject {
  id: string;
  status?: string;
  metadata?: Record<string, string>;
  last_payment_error?: { code?: string } | null;
}

async function apply(ctx: Context, e: WebhookEventRow): Promise<void> {
  const object = (e.payload as { data?: { object?: ProviderObject } }).data?.object;
  if (!object) return;
  const meta = object.metadata ?? {};
  if (e.type === 'payment_intent.succeeded' || e.type === 'payment_intent.payment_failed') {
    const attempt = meta.attempt_id ? await findAttempt(ctx.db, meta.attempt_id) : null;
    if (!attempt) return; // not one of ours
    await applyPaymentOutcome(ctx, attempt.id, e.type === 'payment_intent.succeeded'
      ? { kind: 'succeeded', paymentIntentId: object.id }
      : { kind: 'failed', paymentIntentId: object.id, reason: object.last_payment_error?.code ?? 'payment_failed' });
  } else if ((e.type === 'refund.created' || e.type === 'refund.updated') && object.status === 'succeeded' && meta.refund_id) {
    const refund = await findRefund(ctx.db, meta.refund_id);
    if (refund) await markRefundSucceeded(ctx.db, refund.id, object.id);
  }
}

/** Records a verified event and applies it. Returns false for a duplicate delivery. */
export async function receiveProviderEvent(ctx: Context, e: WebhookEventRow): Promise<boolean> {
  const fresh = await recordEvent(ctx.db, e);
  if (!fresh) return false;
  await apply(ctx, e);
  await markProcessed(ctx.db, e.id);
  return true;
}

/** Worker pass: events recorded by an instance that died before applying them. */
export async function applyLeftoverEvents(ctx: Context): Promise<number> {
  const leftovers = await unprocessedEvents(ctx.db, 10, 50);
  for (const e of leftovers) {
    await apply(ctx, e);
    await markProcessed(ctx.db, e.id);
  }
  return leftovers.length;
}
