// Rules about a hold request that need no database. Pure.
import { ERROR_STATUS, validationFailed, type ErrorCode, type FieldError, type Refusal } from './errors.js';
import type { ShowRule } from './shows.js';

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
  | 'limit_exceeded'
  | 'not_enough_seats'
  // The show's inventory left this database while the claim waited (src/db/showMove.ts): ask again, routed anew.
  | 'moved';

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
  not_enough_seats: { code: 'NOT_ENOUGH_SEATS', message: 'not enough adjacent free seats match this request' },
  moved: { code: 'OVERLOADED', message: 'this show is moving to another database; try again shortly' },
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
  /** The request's field that names how many seats (too_many_seats): `/seats` unless said. */
  countPath?: string;
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
      return answer(message, { errors: [{ path: d.countPath ?? '/seats', message: `at most ${d.seatLimit} seats per buyer for this show` }] });
    case 'sale_not_open':
      if (!d.opensAt) return answer(message);
      return answer(`the sale for this show opens at ${d.opensAt.toISOString()}`, { sale_opens_at: d.opensAt.toISOString() });
    case 'moved':
      return answer(message, { retry_after: 1 });
    default:
      return answer(message);
  }
}

/** A best-available request: how many adjacent seats, and what they must match. */
export interface BestAvailableRequest {
  count: number;
  section?: string;
  tier?: string;
  max_price?: number;
}

/** Checks a best-available request against the hall: a section or tier it names must exist there. */
export function checkBestAvailable(req: BestAvailableRequest, hall: { sections: ReadonlySet<string>; tiers: ReadonlySet<string> }): void {
  const errors: FieldError[] = [];
  if (req.section !== undefined && !hall.sections.has(req.section)) {
    errors.push({ path: '/best_available/section', message: `section ${req.section} does not exist in this hall` });
  }
  if (req.tier !== undefined && !hall.tiers.has(req.tier)) {
    errors.push({ path: '/best_available/tier', message: `tier ${req.tier} does not exist in this hall` });
  }
  if (errors.length) throw validationFailed('the best-available request is not valid', errors);
}

/**
 * The choice best available makes within one row, as the contract states it (the
 * claim makes it in SQL, migrations/0020_claim_best_seats.sql; tests hold the two
 * together). `numbers` are the row's seat numbers, `free` says which are free, `ok`
 * which match the request's filters. A placement is `count` consecutive numbers, all
 * free and matching; it strands a seat when exactly one free seat is left between it
 * and the end of its run of free seats. Best: not stranding, then nearest the row's
 * centre, then the lowest number. Returns the first number, or null.
 */
export function bestStartInRow(numbers: readonly number[], free: (n: number) => boolean, ok: (n: number) => boolean, count: number): number | null {
  if (numbers.length === 0) return null;
  const sorted = [...numbers].sort((a, b) => a - b);
  const mid2 = sorted[0]! + sorted.at(-1)!;
  const freeSet = new Set(sorted.filter(free));
  const runEnd = (n: number, step: 1 | -1) => { let m = n; while (freeSet.has(m + step)) m += step; return m; };
  let best: { start: number; strands: boolean; distance: number } | null = null;
  for (const start of sorted) {
    let fits = true;
    for (let k = 0; k < count; k++) if (!freeSet.has(start + k) || !ok(start + k)) { fits = false; break; }
    if (!fits) continue;
    const end = start + count - 1;
    const strands = start - runEnd(start, -1) === 1 || runEnd(end, 1) - end === 1;
    const distance = Math.abs(2 * start + count - 1 - mid2);
    if (!best || (best.strands && !strands) || (best.strands === strands && distance < best.distance)) best = { start, strands, distance };
  }
  return best?.start ?? null;
}

/**
 * What the claim refuses before it looks at any seat, judged on a show's rules at
 * `nowMs` (the database's clock): more seats than the per-user limit, a sale not
 * open yet or closed. Null: the seats decide.
 */
export function refusedBeforeSeats(rule: ShowRule, nowMs: number, seatCount: number): Refusal | null {
  if (seatCount > rule.perUserLimit) return refusal('too_many_seats', { seatLimit: rule.perUserLimit });
  if (nowMs < rule.saleOpensAtMs) return refusal('sale_not_open', { opensAt: new Date(rule.saleOpensAtMs) });
  if (nowMs >= rule.startsAtMs) return refusal('sale_closed');
  return null;
}
