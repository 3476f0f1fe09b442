// Payment attempts and refunds: what was asked of the provider, and what it said.
import type { Queryable } from './client.js';
import type { PaymentAttemptStatus, RefundStatus } from '../domain/states.js';

export interface AttemptRow {
  id: string;
  booking_id: string;
  hold_id: string;
  amount: number;
  currency: string;
  payment_method: string;
  status: PaymentAttemptStatus;
  provider_payment_id: string | null;
  checks: number;
}

const ATTEMPT = 'select id, booking_id, hold_id, amount, currency, payment_method, status, provider_payment_id, checks from payment_attempts';

export async function findAttempt(db: Queryable, id: string): Promise<AttemptRow | null> {
  return (await db.query<AttemptRow>(`${ATTEMPT} where id = $1`, [id])).rows[0] ?? null;
}

export async function findAttemptByBooking(db: Queryable, bookingId: string): Promise<AttemptRow | null> {
  return (await db.query<AttemptRow>(`${ATTEMPT} where booking_id = $1`, [bookingId])).rows[0] ?? null;
}

/** Records a definitive outcome once (with why, when it failed); false when the attempt already had one. */
export async function resolveAttempt(
  tx: Queryable, id: string, status: Extract<PaymentAttemptStatus, 'succeeded' | 'failed'>, paymentIntentId: string | null,
  failure: { code: string; message: string } | null = null,
): Promise<boolean> {
  const r = await tx.query(
    `update payment_attempts set status = $2, provider_payment_id = coalesce($3, provider_payment_id), resolved_at = now(),
            failure_code = $4, failure_message = $5
      where id = $1 and status in ('created', 'unknown')`,
    [id, status, paymentIntentId, failure?.code.slice(0, 100) ?? null, failure?.message.slice(0, 500) ?? null],
  );
  return r.rowCount === 1;
}

/** The outcome is not known: look again after a backoff. */
export async function markAttemptUnknown(db: Queryable, id: string, reason: string, delaySeconds: number): Promise<void> {
  await db.query(
    `update payment_attempts set status = 'unknown', last_error = $2, next_check_at = bo_now() + make_interval(secs => $3)
      where id = $1 and status in ('created', 'unknown')`,
    [id, reason.slice(0, 500), delaySeconds],
  );
}

/**
 * Takes up to `limit` attempts whose outcome is open and due, pushing their next
 * check out by the backoff so that no other worker takes them meanwhile.
 */
export async function claimOpenAttempts(db: Queryable, limit: number, baseSeconds: number, maxSeconds: number): Promise<AttemptRow[]> {
  const r = await db.query<AttemptRow>(
    `with due as (
       select id from payment_attempts
        where status in ('created', 'unknown') and next_check_at <= bo_now()
        order by next_check_at
        limit $1
          for update skip locked
     )
     update payment_attempts a
        set checks = a.checks + 1,
            next_check_at = bo_now() + make_interval(secs => least($3::float8, $2::float8 * power(2, least(a.checks, 16))))
       from due where a.id = due.id
     returning a.id, a.booking_id, a.hold_id, a.amount, a.currency, a.payment_method, a.status, a.provider_payment_id, a.checks`,
    [limit, baseSeconds, maxSeconds],
  );
  return r.rows;
}

/** A refund for the booking, once: a second request for the same booking returns false. */
export async function insertRefund(
  tx: Queryable,
  r: { id: string; bookingId: string; paymentIntentId: string; amount: number; currency: string; reason: 'cancellation' | 'seats_lost' },
): Promise<boolean> {
  const res = await tx.query(
    `insert into refunds (id, booking_id, payment_intent, amount, currency, reason, status)
     values ($1, $2, $3, $4, $5, $6, 'pending') on conflict (booking_id) do nothing`,
    [r.id, r.bookingId, r.paymentIntentId, r.amount, r.currency, r.reason],
  );
  return res.rowCount === 1;
}

export interface RefundRow {
  id: string;
  booking_id: string;
  payment_intent: string;
  amount: number;
  reason: 'cancellation' | 'seats_lost';
  status: RefundStatus;
}

export async function findRefund(db: Queryable, id: string): Promise<RefundRow | null> {
  return (await db.query<RefundRow>('select id, booking_id, payment_intent, amount, reason, status from refunds where id = $1', [id])).rows[0] ?? null;
}

export async function markRefundSucceeded(db: Queryable, id: string, providerRefundId: string): Promise<void> {
  await db.query(
    `update refunds set status = 'succeeded', provider_refund_id = $2, resolved_at = now() where id = $1 and status = 'pending'`,
    [id, providerRefundId],
  );
}

/** The provider refused the refund for good: no more retries; the reason is kept for an operator. */
export async function markRefundFailed(db: Queryable, id: string, reason: string): Promise<void> {
  await db.query(
    `update refunds set status = 'failed', failure_reason = $2, resolved_at = now() where id = $1 and status = 'pending'`,
    [id, reason.slice(0, 500)],
  );
}
