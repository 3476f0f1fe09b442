// Delivers outbox rows: tickets to issue, refunds to send. At least once; every
// handler is idempotent (tickets on conflict do nothing, refunds keyed by refund id).
// A refund the provider cannot answer now is retried with backoff; one it refuses
// for good is marked failed and shown to operators (stats, metrics, a warning).
import { leaseDue, markDone, markFailed, type OutboxEvent, type OutboxTopic } from '../db/outbox.js';
import { findRefund, markRefundFailed, markRefundSucceeded } from '../db/payments.js';
import { issueTickets } from '../app/tickets.js';
import type { Context } from '../app/context.js';

type Log = { warn: (o: object, m: string) => void };

async function handle(ctx: Context, e: OutboxEvent, log: Log): Promise<void> {
  switch (e.topic) {
    case 'ticket.issue':
      return issueTickets(ctx, e.payload.booking_id!);
    case 'refund.create': {
      const refund = await findRefund(ctx.db, e.payload.refund_id!);
      if (!refund || refund.status !== 'pending') return;
      const r = await ctx.payments.refund({ refundId: refund.id, bookingId: refund.booking_id, paymentIntentId: refund.payment_intent, amount: refund.amount }, ctx.config.paymentTimeoutMs);
      if (r.kind === 'retry') throw new Error(r.reason);
      if (r.kind === 'refused') {
        // Retrying a refund the provider refuses for good would only hide it: an operator decides.
        await markRefundFailed(ctx.db, refund.id, r.reason);
        ctx.metrics.refundsRefused.inc({ code: r.code });
        log.warn({ event: 'refund.refused', refund_id: refund.id, booking_id: refund.booking_id, amount: Number(refund.amount), code: r.code, reason: r.reason }, 'refund refused by the provider; marked failed');
        return;
      }
      await markRefundSucceeded(ctx.db, refund.id, r.refundId);
      ctx.metrics.refundsSent.inc({ reason: refund.reason });
      ctx.log.info({ event: 'refund.sent', refund_id: refund.id, booking_id: refund.booking_id, amount: Number(refund.amount), reason: refund.reason, provider_refund: r.refundId }, 'refund sent');
      return;
    }
  }
}

/** One pass over one topic: leases due rows and handles them; returns how many it handled. */
export async function relayOutbox(ctx: Context, topic: OutboxTopic, log: Log): Promise<number> {
  const due = await leaseDue(ctx.db, topic, 20, 30);
  await Promise.all(due.map(async (e) => {
    try {
      await handle(ctx, e, log);
      await markDone(ctx.db, e.id);
    } catch (err) {
      log.warn({ err, outbox_id: e.id, topic: e.topic }, 'outbox delivery failed; will retry');
      await markFailed(ctx.db, e.id, String((err as Error).message ?? err), Math.min(60, 2 ** Math.min(e.attempts, 6) * ctx.config.reconcileBaseSeconds));
    }
  }));
  return due.length;
}
