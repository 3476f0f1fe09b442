// The states of seats, holds, bookings, payment attempts and refunds, and the moves
// allowed between them, as data. Pure. The statements that make each move guard
// it in their WHERE clause (seats and holds: src/db/seatTransitions.ts; bookings:
// src/db/seatTransitions.ts and src/db/bookings.ts; src/db/payments.ts); docs/states.md
// is the same table in prose.

export type SeatStatus = 'available' | 'held' | 'paying' | 'booked';
export type HoldStatus = 'active' | 'paying' | 'confirmed' | 'released' | 'expired';
export type BookingStatus = 'pending' | 'confirmed' | 'failed' | 'cancelled' | 'refunded';
export type PaymentAttemptStatus = 'created' | 'unknown' | 'succeeded' | 'failed';
export type RefundStatus = 'pending' | 'succeeded' | 'failed';

interface Move<S extends string> {
  readonly from: readonly S[];
  readonly to: S;
}

/**
 * Every seat move. `claim` and `offer` also take a `held` seat whose hold has expired, and
 * `expire` only such a seat (the time half of both guards is in their SQL).
 */
export const SEAT_MOVES = {
  claim: { from: ['available', 'held'], to: 'held' },
  // A waiting list's offer: free seats (available, or held past their expiry) held for the first entry that fits.
  offer: { from: ['available', 'held'], to: 'held' },
  release: { from: ['held'], to: 'available' },
  expire: { from: ['held'], to: 'available' },
  enterPayment: { from: ['held'], to: 'paying' },
  book: { from: ['paying'], to: 'booked' },
  backToHeld: { from: ['paying'], to: 'held' },
  free: { from: ['paying', 'booked'], to: 'available' },
} as const satisfies Record<string, Move<SeatStatus>>;
export type SeatMove = keyof typeof SEAT_MOVES;

/** Every hold move (a hold is created `active` by the claim). `expire` takes an active hold past its expiry. */
export const HOLD_MOVES = {
  release: { from: ['active'], to: 'released' },
  enterPayment: { from: ['active'], to: 'paying' },
  decline: { from: ['paying'], to: 'active' },
  confirm: { from: ['paying'], to: 'confirmed' },
  seatsLost: { from: ['paying'], to: 'expired' },
  expire: { from: ['active'], to: 'expired' },
} as const satisfies Record<string, Move<HoldStatus>>;
export type HoldMove = keyof typeof HOLD_MOVES;

/** Every booking move (a booking is created `pending` on entering payment). */
export const BOOKING_MOVES = {
  confirm: { from: ['pending'], to: 'confirmed' },
  fail: { from: ['pending'], to: 'failed' },
  // Money arrived for a booking that cannot have its seats: lost seats, or a success after a decline.
  refund: { from: ['pending', 'failed'], to: 'refunded' },
  cancel: { from: ['confirmed'], to: 'cancelled' },
  // The show was cancelled: a confirmed booking, or a pending one whose payment then succeeded.
  organiserCancel: { from: ['confirmed', 'pending'], to: 'cancelled' },
} as const satisfies Record<string, Move<BookingStatus>>;
export type BookingMove = keyof typeof BOOKING_MOVES;

/** Payment attempts are created `created`; `unknown` may repeat (another check, still no answer). */
export const PAYMENT_ATTEMPT_MOVES = {
  unknown: { from: ['created', 'unknown'], to: 'unknown' },
  succeed: { from: ['created', 'unknown'], to: 'succeeded' },
  fail: { from: ['created', 'unknown'], to: 'failed' },
} as const satisfies Record<string, Move<PaymentAttemptStatus>>;

/** Refunds are created `pending`. */
export const REFUND_MOVES = {
  succeed: { from: ['pending'], to: 'succeeded' },
  fail: { from: ['pending'], to: 'failed' },
} as const satisfies Record<string, Move<RefundStatus>>;

/**
 * For a move made under a lock that guarantees it is allowed: zero rows changed
 * means the state machine and the code disagree, so the transaction must not commit.
 */
export function mustHaveMoved(changed: number, what: string): void {
  if (changed < 1) throw new Error(`illegal state change refused by its guard: ${what}`);
}
