// Pays for a hold at most once per Idempotency-Key: the first request with a key
// runs the booking and stores its answer (not a 403 QUEUE_REQUIRED, nor a 5xx); a repeat with the same body gets that
// answer back, a different body or a request still running is refused. A paid
// booking's key is claimed and answered inside the booking's own two statements
// (src/app/bookings.ts: enterClaimingKey, payClaimed); every other case claims it on its own first. Answers
// are kept for IDEMPOTENCY_TTL_HOURS; an older key counts as new.
import { createHash } from 'node:crypto';
import { DomainError } from '../domain/errors.js';
import { claimKey, deleteExpiredKeys, releaseKey, renewKey, storeAnswer } from '../db/idempotency.js';
import { findBooking } from '../db/bookings.js';
import type { Principal } from '../auth/tokens.js';
import { book, bookingView, enterClaimingKey, payClaimed, type Booked, type BookingView } from './bookings.js';
import type { Context } from './context.js';

// A running request renews its key's lease every few seconds; a request whose
// instance died leaves a lease that runs out soon, and a repeat then takes over.
export const KEY_LEASE_SECONDS = 15;
const KEY_RENEW_MS = 5000;
const SWEEP_BATCH = 500;
const SWEEP_BATCHES_PER_PASS = 20;

export interface BookingRequest {
  key: string;
  /** The body in canonical form (or as sent, when it does not parse): what makes a repeat "the same". */
  canonicalBody: string;
  /** The checked body, or what is wrong with it (answered and stored like any other answer). */
  input: { hold_id: string; payment_method: string } | DomainError;
  /** The show of the caller's verified admission token, or null. */
  admittedShowId?: string | null;
}

/** An answer as the transport sends it; only status and body are stored. */
export interface Answer {
  status: number;
  body: unknown;
}

export type KeyedOutcome<A extends Answer> =
  | { kind: 'reused' }
  | { kind: 'in_flight' }
  | { kind: 'replay'; status: number; body: unknown }
  | { kind: 'answered'; answer: A };

/**
 * Runs the booking once for the caller's key. `answer` turns the booking (or what
 * was thrown) into the transport's answer; every answer below 500 is stored for
 * repeats, a 5xx forgets the key so that a retry runs again.
 */
export async function bookOnce<A extends Answer>(
  ctx: Context,
  buyer: Principal,
  request: BookingRequest,
  answer: { created(view: BookingView): A; failed(err: unknown): A },
): Promise<KeyedOutcome<A>> {
  const { key } = request;
  const fingerprint = createHash('sha256').update(request.canonicalBody).digest('hex');
  const ttlSeconds = ctx.config.idempotencyTtlHours * 3600;
  // Started before the claim: the first renewal comes after KEY_RENEW_MS, by when the
  // key is this request's (or the request has answered without it).
  const renew = setInterval(() => void renewKey(ctx.db, buyer.userId, key, KEY_LEASE_SECONDS).catch(() => {}), KEY_RENEW_MS);
  try {
    // The common case: a new key for a payable hold, claimed and answered inside the booking's own two statements.
    const input = request.input instanceof DomainError ? null : request.input;
    const claimed = input && await enterClaimingKey(ctx, buyer, key, input, request.admittedShowId ?? null, { fingerprint, leaseSeconds: KEY_LEASE_SECONDS, ttlSeconds });
    if (input && claimed) {
      let fast: Booked;
      try {
        fast = await payClaimed(ctx, buyer, key, input, claimed, (view) => stored(answer.created(view)));
      } catch (err) {
        return { kind: 'answered', answer: await settle(ctx, buyer, key, answer.failed(err), err) };
      }
      const result = answer.created(fast.view);
      if (!fast.answerStored) await storeAnswer(ctx.db, buyer.userId, key, result.status, result.body);
      return { kind: 'answered', answer: result };
    }
    // Otherwise (the key not free, the hold not payable, a body not valid): claim it on its own and say why.
    const state = await claimKey(ctx.db, buyer.userId, key, fingerprint, KEY_LEASE_SECONDS, ttlSeconds);
    if (state.kind === 'reused' || state.kind === 'in_flight' || state.kind === 'replay') return state;
    let result: A;
    let failure: unknown = null;
    try {
      if (state.kind === 'taken_over' && state.bookingId) {
        // The first request died after creating its booking: answer with that booking.
        result = answer.created(bookingView((await findBooking(ctx.db, state.bookingId))!));
      } else {
        if (request.input instanceof DomainError) throw request.input;
        result = answer.created(await book(ctx, buyer, key, request.input, request.admittedShowId ?? null));
      }
    } catch (err) {
      failure = err;
      result = answer.failed(err);
    }
    return { kind: 'answered', answer: await settle(ctx, buyer, key, result, failure) };
  } finally {
    clearInterval(renew);
  }
}

const stored = (a: Answer): Answer => ({ status: a.status, body: a.body });

/** Stores the answer under the key, or forgets the key (a 5xx, or QUEUE_REQUIRED: API.md) so that the same key works again. */
async function settle<A extends Answer>(ctx: Context, buyer: Principal, key: string, result: A, failure: unknown): Promise<A> {
  const notStored = failure instanceof DomainError && failure.code === 'QUEUE_REQUIRED';
  if (result.status >= 500 || notStored) await releaseKey(ctx.db, buyer.userId, key);
  else await storeAnswer(ctx.db, buyer.userId, key, result.status, result.body);
  return result;
}

/** Forgets stored answers past their time, oldest first, in short batches; the number forgotten. */
export async function sweepExpiredKeys(ctx: Context): Promise<number> {
  let swept = 0;
  for (let i = 0; i < SWEEP_BATCHES_PER_PASS; i++) {
    const n = await deleteExpiredKeys(ctx.db, ctx.config.idempotencyTtlHours * 3600, SWEEP_BATCH);
    swept += n;
    if (n < SWEEP_BATCH) break;
  }
  return swept;
}
