// A delta from the live stream applied to a seat map. (Imports carry `.js` so the tests,
// type-checked as Node ESM, can import this file too.)
import type { Seat, SeatDelta, SeatStatus } from '../api/types.js';

/** The map at `version` after `delta`; the same array when the delta is not newer. Untouched seats keep their identity. */
export function applyDelta(seats: Seat[], version: number, delta: SeatDelta): Seat[] {
  if (delta.version <= version) return seats;
  const changed = new Map<string, SeatStatus>(delta.changes.map((c) => [c.seat, c.status]));
  return seats.map((s) => {
    const status = changed.get(s.seat);
    return status && status !== s.status ? { ...s, status } : s;
  });
}
