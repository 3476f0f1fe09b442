// Idempotency-Key records of the booking route, scoped to the caller. The key is
// claimed by the booking request's first statement and its success answered by its
// second (enterPayment, confirmPayment in src/db/seatTransitions.ts: one round trip
// each); everything else a key goes through is here.
import type { Queryable } from './client.js';

/** A booking request's claim of its key, made by the statement that enters payment (enterPayment in src/db/seatTransitions.ts). */
export interface KeyClaim {
  key: string;
  /** sha256 of the request's canonical body: what makes a repeat "the same". */
  fingerprint: string;
  leaseSeconds: number;
  /** A key first used longer ago than this (and not running) is taken afresh, as if it had never been used. */
  ttlSeconds: number;
}

/** A key as it stood when a request could not claim it. */
export interface KeyRow {
  fingerprint: string;
  state: 'in_flight' | 'done';
  response_status: number | null;
  response_body: unknown;
  /** The booking its request made; only a booking that exists is noted. */
  booking_id: string | null;
  /** Its lease ran out: the request that holds it died. */
  expired: boolean;
}

/** The answer a booking request stores under its key, with the confirmation that makes it true (confirmPayment in src/db/seatTransitions.ts). */
export interface KeyedAnswer {
  userId: string;
  key: string;
  status: number;
  body: unknown;
}

/**
 * Takes over a key whose request died after making its booking (its lease ran out):
 * false when another request took it first.
 */
export async function takeOverKey(db: Queryable, userId: string, key: string, leaseSeconds: number): Promise<boolean> {
  const took = await db.query(
    `update idempotency_keys set lease_until = now() + make_interval(secs => $3)
      where user_id = $1 and key = $2 and state = 'in_flight' and lease_until < now()`,
    [userId, key, leaseSeconds],
  );
  return took.rowCount === 1;
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
