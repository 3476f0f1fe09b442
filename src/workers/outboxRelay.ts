// Delivers outbox rows: tickets to issue, refunds to send. At least once; every
// handler is idempotent (tickets on conflict do nothing, refunds keyed by refund id).
// Tickets go a batch at a time (three statements however many bookings); refunds
// one at a time, each a provider call. A refund the provider cannot answer now is
// retried with backoff; one it refuses for good is marked failed and shown to
// operators (stats, metrics, a warning).
import { leaseDue, markDone, markFailed, type OutboxEvent, type OutboxTopic } from '../db/outbox.js';
import { findRefund, markRefundFailed, markRefundSucceeded } from '../db/payments.js';
import { issueTicketsInBatch } from '../app/tickets.js';
import type { Context } from '../app/context.js';
import type { Database } from '../db/client.js';

type Log = { warn: (o: object, m: string) => void };

/** Ticket tasks leased at once, issued together. */
const TICKET_BATCH = 200;
const REFUND_BATCH = 20;
const LEASE_SECONDS = 30;

const retryInSeconds = (ctx: Context, e: OutboxEvent) => Math.min(60, 2 ** Math.min(e.attempts, 6) * ctx.config.reconcileBaseSeconds);
const failure = (err: unknown) => String((err as Error).message ?? err);

/** One pass over one topic: leases due rows and handles them; returns how many it handled. */
/** One pass over one topic of one inventory database's outbox. */
export function relayOutbox(ctx: Context, db: Database, topic: OutboxTopic, log: Log): Promise<number> {
  return topic === 'ticket.issue' ? relayTickets(ctx, db, log) : relayRefunds(ctx, db, log);
}

/** Ticket tasks, a batch at a time: all of it issued and done, or (a failure) all of it retried. */
async function relayTickets(ctx: Context, db: Database, log: Log): Promise<number> {
  const due = await leaseDue(db, 'ticket.issue', TICKET_BATCH, LEASE_SECONDS);
  if (due.length === 0) return 0;
  try {
    await issueTicketsInBatch(ctx, db, due.map((e) => ({ outboxId: e.id, bookingId: e.payload.booking_id! })));
  } catch (err) {
    log.warn({ err, outbox_ids: due.map((e) => e.id), topic: 'ticket.issue' }, 'ticket issuing failed; will retry');
    await Promise.all(due.map((e) => markFailed(db, e.id, failure(err), retryInSeconds(ctx, e))));
  }
  return due.length;
}

async function relayRefunds(ctx: Context, db: Database, log: Log): Promise<number> {
  const due = await leaseDue(db, 'refund.create', REFUND_BATCH, LEASE_SECONDS);
  await Promise.all(due.map(async (e) => {
    try {
      await sendRefund(ctx, db, e, log);
      await markDone(db, e.id);
    } catch (err) {
      log.warn({ err, outbox_id: e.id, topic: e.topic }, 'outbox delivery failed; will retry');
      await markFailed(db, e.id, failure(err), retryInSeconds(ctx, e));
    }
  }));
  return due.length;
}

async function sendRefund(ctx: Context, db: Database, e: OutboxEvent, log: Log): Promise<void> {
  const refund = await findRefund(db, e.payload.refund_id!);
  if (!refund || refund.status !== 'pending') return;
  const r = await ctx.payments.refund({ refundId: refund.id, bookingId: refund.booking_id, paymentIntentId: refund.payment_intent, amount: refund.amount }, ctx.config.paymentTimeoutMs);
  if (r.kind === 'retry') throw new Error(r.reason);
  if (r.kind === 'refused') {
    // Retrying a refund the provider refuses for good would only hide it: an operator decides.
    await markRefundFailed(db, refund.id, r.reason);
    ctx.metrics.refundsRefused.inc({ code: r.code });
    log.warn({ event: 'refund.refused', refund_id: refund.id, booking_id: refund.booking_id, amount: Number(refund.amount), code: r.code, reason: r.reason }, 'refund refused by the provider; marked failed');
    return;
  }
  await markRefundSucceeded(db, refund.id, r.refundId);
  ctx.metrics.refundsSent.inc({ reason: refund.reason });
  ctx.log.info({ event: 'refund.sent', refund_id: refund.id, booking_id: refund.booking_id, amount: Number(refund.amount), reason: refund.reason, provider_refund: r.refundId }, 'refund sent');
}
