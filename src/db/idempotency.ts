// Idempotency-Key records of the booking route, scoped to the caller.
import type { Queryable } from './client.js';

export type KeyState =
  | { kind: 'new' }
  | { kind: 'reused' }
  | { kind: 'in_flight' }
  | { kind: 'replay'; status: number; body: unknown }
  /** The first request's instance died: this request now owns the key (and the booking it made, if any). */
  | { kind: 'taken_over'; bookingId: string | null };

/**
 * Claims the key for this request, or says why not. The lease outlives the
 * longest request. A key first used more than `ttlSeconds` ago (and not running)
 * is taken afresh, as if it had never been used.
 */
export async function claimKey(db: Queryable, userId: string, key: string, fingerprint: string, leaseSeconds: number, ttlSeconds: number): Promise<KeyState> {
  const inserted = await db.query(
    `insert into idempotency_keys (user_id, key, fingerprint, state, lease_until)
     values ($1, $2, $3, 'in_flight', now() + make_interval(secs => $4))
     on conflict (user_id, key) do update
       set fingerprint = excluded.fingerprint, state = 'in_flight', lease_until = excluded.lease_until, booking_id = null,
           response_status = null, response_body = null, created_at = now()
     where idempotency_keys.created_at < now() - make_interval(secs => $5)
       and (idempotency_keys.state = 'done' or idempotency_keys.lease_until < now())`,
    [userId, key, fingerprint, leaseSeconds, ttlSeconds],
  );
  if (inserted.rowCount === 1) return { kind: 'new' };
  const r = await db.query<{ fingerprint: string; state: string; response_status: number | null; response_body: unknown; booking_id: string | null; expired: boolean }>(
    `select fingerprint, state, response_status, response_body, booking_id, lease_until < now() as expired
       from idempotency_keys where user_id = $1 and key = $2`,
    [userId, key],
  );
  const row = r.rows[0];
  if (!row) return claimKey(db, userId, key, fingerprint, leaseSeconds, ttlSeconds); // released meanwhile: try again
  if (row.fingerprint !== fingerprint) return { kind: 'reused' };
  if (row.state === 'done') return { kind: 'replay', status: row.response_status!, body: row.response_body };
  if (!row.expired) return { kind: 'in_flight' };
  const took = await db.query(
    `update idempotency_keys set lease_until = now() + make_interval(secs => $3)
      where user_id = $1 and key = $2 and state = 'in_flight' and lease_until < now()`,
    [userId, key, leaseSeconds],
  );
  return took.rowCount === 1 ? { kind: 'taken_over', bookingId: row.booking_id } : { kind: 'in_flight' };
}

/** Extends the lease of a request still running, so that only a dead one's lease runs out. */
export async function renewKey(db: Queryable, userId: string, key: string, leaseSeconds: number): Promise<void> {
  await db.query(
    `update idempotency_keys set lease_until = now() + make_interval(secs => $3)
      where user_id = $1 and key = $2 and state = 'in_flight'`,
    [userId, key, leaseSeconds],
  );
}

export async function storeAnswer(db: Queryable, userId: string, key: string, status: number, body: unknown): Promise<void> {
  await db.query(
    `update idempotency_keys set state = 'done', lease_until = null, response_status = $3, response_body = $4
      where user_id = $1 and key = $2`,
    [userId, key, status, JSON.stringify(body)],
  );
}

/** Forgets a key whose request failed on our side (5xx), so that a retry runs again. */
export async function releaseKey(db: Queryable, userId: string, key: string): Promise<void> {
  await db.query(`delete from idempotency_keys where user_id = $1 and key = $2 and state = 'in_flight' and booking_id is null`, [userId, key]);
}

/**
 * Deletes up to `batch` keys first used more than `ttlSeconds` ago and not
 * running; the number deleted. Bounded, so one pass never holds many row locks.
 */
export async function deleteExpiredKeys(db: Queryable, ttlSeconds: number, batch: number): Promise<number> {
  const r = await db.query(
    `delete from idempotency_keys where (user_id, key) in (
       select user_id, key from idempotency_keys
        where created_at < now() - make_interval(secs => $1) and (state = 'done' or lease_until < now())
        order by created_at
        limit $2
        for update skip locked)`,
    [ttlSeconds, batch],
  );
  return r.rowCount ?? 0;
}
