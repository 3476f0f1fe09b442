// Rules about a hold request that need no database. Pure.
import { ERROR_STATUS, validationFailed, type ErrorCode, type FieldError, type Refusal } from './errors.js';

/** Checks a requested seat list against the hall's seats: no duplicates, no unknown seats. */
export function checkRequestedSeats(requested: readonly string[], hallSeats: ReadonlySet<string>): void {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  requested.forEach((seat, i) => {
    if (seen.has(seat)) errors.push({ path: `/seats/${i}`, message: `seat ${seat} is requested twice` });
    else if (!hallSeats.has(seat)) errors.push({ path: `/seats/${i}`, message: `seat ${seat} does not exist in this hall` });
    seen.add(seat);
  });
  if (errors.length) throw validationFailed('the requested seats are not valid', errors.slice(0, 20));
}

/** What claim_seats answered, as the contract names it. */
export type ClaimOutcome =
  | 'held'
  | 'show_not_found'
  | 'show_cancelled'
  | 'too_many_seats'
  | 'sale_not_open'
  | 'sale_closed'
  | 'queue_required'
  | 'unknown_seats'
  | 'seat_unavailable'
  | 'limit_exceeded';

const REFUSALS: Record<Exclude<ClaimOutcome, 'held'>, { code: ErrorCode; message: string }> = {
  show_not_found: { code: 'NOT_FOUND', message: 'show not found' },
  show_cancelled: { code: 'SHOW_CANCELLED', message: 'this show has been cancelled: nothing more is sold for it' },
  too_many_seats: { code: 'VALIDATION_FAILED', message: 'more seats than the per-user limit of this show' },
  sale_not_open: { code: 'SALE_NOT_OPEN', message: 'the sale for this show has not opened yet' },
  sale_closed: { code: 'SALE_CLOSED', message: 'the sale for this show has closed' },
  queue_required: { code: 'QUEUE_REQUIRED', message: 'this show sells through its waiting room: an Admission-Token is required' },
  unknown_seats: { code: 'VALIDATION_FAILED', message: 'some requested seats do not exist in this show' },
  seat_unavailable: { code: 'SEAT_UNAVAILABLE', message: 'some requested seats are no longer available' },
  limit_exceeded: { code: 'LIMIT_EXCEEDED', message: 'this hold would exceed the per-user limit of this show' },
};

/** What the claim says beyond its outcome, so that a refusal can tell the buyer what to do. */
export interface ClaimDetails {
  taken?: readonly string[] | null;
  /** The show's per_user_limit (limit_exceeded, too_many_seats). */
  seatLimit?: number | null;
  /** Seats the buyer already holds, pays for or has booked for this show (limit_exceeded). */
  seatsHad?: number | null;
  /** When the sale opens (sale_not_open). */
  opensAt?: Date | null;
}

export function refusal(outcome: Exclude<ClaimOutcome, 'held'>, d: ClaimDetails = {}): Refusal {
  const { code, message } = REFUSALS[outcome];
  const answer = (text: string, extensions: Record<string, unknown> = {}): Refusal => ({ code, status: ERROR_STATUS[code], message: text, extensions });
  switch (outcome) {
    case 'seat_unavailable':
      return answer(message, { taken: d.taken ?? [] });
    case 'limit_exceeded':
      if (d.seatLimit == null || d.seatsHad == null) return answer(message);
      return answer(`you already have ${d.seatsHad} of the ${d.seatLimit} seats one buyer may have for this show`, {
        per_user_limit: d.seatLimit, seats_already_yours: Number(d.seatsHad),
      });
    case 'too_many_seats':
      if (d.seatLimit == null) return answer(message);
      return answer(message, { errors: [{ path: '/seats', message: `at most ${d.seatLimit} seats per buyer for this show` }] });
    case 'sale_not_open':
      if (!d.opensAt) return answer(message);
      return answer(`the sale for this show opens at ${d.opensAt.toISOString()}`, { sale_opens_at: d.opensAt.toISOString() });
    default:
      return answer(message);
  }
}
