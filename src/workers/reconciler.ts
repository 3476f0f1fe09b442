// Resolves payment attempts whose outcome is unknown (a lost or late answer, a
// crash between recording the attempt and calling the provider) by replaying the
// same idempotent request: the provider answers with what it did the first time,
// or does it now, never twice. Backs off until it hears a definitive answer.
import { claimOpenAttempts } from '../db/payments.js';
import { applyPaymentOutcome } from '../app/bookings.js';
import type { Context } from '../app/context.js';
import type { Database } from '../db/client.js';
import { showOfId } from '../domain/ids.js';

/** One pass over one inventory database's open attempts. */
export async function reconcilePayments(ctx: Context, db: Database): Promise<number> {
  const open = await claimOpenAttempts(db, 20, ctx.config.reconcileBaseSeconds, 60);
  await Promise.all(open.map(async (a) => {
    const outcome = await ctx.payments.charge(
      { attemptId: a.id, bookingId: a.booking_id, holdId: a.hold_id, showId: showOfId(a.id), amount: a.amount, currency: a.currency, paymentMethod: a.payment_method },
      ctx.config.paymentTimeoutMs,
    );
    // An unknown outcome keeps the backoff that claimOpenAttempts already set.
    if (outcome.kind !== 'unknown') await applyPaymentOutcome(ctx, a.id, outcome);
    else ctx.metrics.paymentOutcomes.inc({ outcome: 'unknown' });
  }));
  return open.length;
}
