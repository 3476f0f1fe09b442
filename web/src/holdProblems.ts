// What a refused hold means to the buyer: the message to show, the seats to drop from
// the selection (only those another buyer took), and where to go (sign-in, the queue).
import { ApiError } from './api/client';
import type { Show } from './api/types';
import { dateTime } from './format';

export interface HoldRefusal {
  message: string;
  /** Seat ids no longer to be had. */
  taken?: string[];
  /** The page to go to instead. */
  goTo?: string;
  /** The waiting room admission is no longer valid. */
  forgetAdmission?: boolean;
}

function list(items: string[]): string {
  return new Intl.ListFormat(undefined, { type: 'conjunction' }).format(items);
}

/** `nameOf` turns a seat id into "Row F, seat 7"; `backTo` is this page's address. */
export function holdRefusal(err: unknown, show: Show, kept: number, nameOf: (seatId: string) => string, backTo: string): HoldRefusal {
  if (!(err instanceof ApiError)) return { message: 'The box office could not be reached. Check your connection and try again.' };
  const wait = err.retryAfterSeconds ?? err.problem.retry_after_seconds ?? null;
  const busy = `The box office is busy right now. Please try again in ${wait === null ? 'a few seconds' : `${wait} s`}.`;
  switch (err.code) {
    case 'SEAT_UNAVAILABLE': {
      const taken = err.problem.taken ?? [];
      const names = taken.map(nameOf);
      const went = taken.length === 1 ? 'was just taken by someone else' : 'were just taken by someone else';
      const rest = kept > 0 ? ' Your other seats are still selected: hold them, or pick more.' : ' Please choose other seats.';
      return { message: `${list(names.length ? names : ['A seat you chose'])} ${went}.${rest}`, taken };
    }
    case 'NOT_ENOUGH_SEATS':
      return { message: 'There are not that many seats together left for what you asked. Try fewer seats, another section or price, or choose seats on the map.' };
    case 'LIMIT_EXCEEDED':
      return { message: `You can have at most ${show.per_user_limit} seats for this show, counting seats you already hold or booked.` };
    case 'SALE_NOT_OPEN':
      return { message: `Sales for this show have not opened yet${show.sale_opens_at ? `: they open ${dateTime(show.sale_opens_at, show.venue.timezone)}` : ''}.` };
    case 'SALE_CLOSED':
      return { message: 'Sales for this show have closed.' };
    case 'QUEUE_REQUIRED':
      return { message: 'Your place in the waiting room has expired.', forgetAdmission: true, goTo: `/shows/${encodeURIComponent(show.id)}/queue` };
    case 'UNAUTHENTICATED':
      return { message: 'Please sign in again.', goTo: `/signin?next=${encodeURIComponent(backTo)}` };
    case 'OVERLOADED':
    case 'RATE_LIMITED':
      return { message: busy };
    default:
      if (err.status === 503 || err.status === 429) return { message: busy };
      return { message: err.message };
  }
}
