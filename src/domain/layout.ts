// A hall's layout, expanded into seats. Pure: no I/O.
import { validationFailed, type FieldError } from './errors.js';

export const MAX_HALL_SEATS = 100_000;

export interface LayoutRow {
  row: string;
  seats: number | number[];
  tier: string;
  section?: string;
  accessible?: number[];
}

export interface Layout {
  rows: LayoutRow[];
}

export interface HallSeat {
  seat_id: string;
  row: string;
  number: number;
  section: string | null;
  tier: string;
  accessible: boolean;
}

/** "F7", or "101-F7" when the row belongs to a section. */
export function seatId(row: string, number: number, section?: string | null): string {
  return section ? `${section}-${row}${number}` : `${row}${number}`;
}

/**
 * Refuses a layout of more than MAX_HALL_SEATS seats from its counts alone, at
 * the row that passes the cap: a few kilobytes of layout may name billions of
 * seats, and expanding them first blocked the event loop for tens of seconds.
 */
export function checkHallSize(layout: Layout): void {
  let total = 0;
  for (const [i, r] of layout.rows.entries()) {
    total += typeof r.seats === 'number' ? r.seats : r.seats.length;
    if (total > MAX_HALL_SEATS) {
      throw validationFailed('the layout is not valid', [
        { path: `/layout/rows/${i}/seats`, message: `a hall holds at most ${MAX_HALL_SEATS.toLocaleString('en')} seats; the rows up to this one hold ${total.toLocaleString('en')}` },
      ]);
    }
  }
}

/** Expands rows into seats in layout order; rejects oversize halls (before expanding), duplicates and bad accessible lists. */
export function expandLayout(layout: Layout): HallSeat[] {
  checkHallSize(layout);
  const seats: HallSeat[] = [];
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  layout.rows.forEach((r, i) => {
    const numbers = typeof r.seats === 'number' ? Array.from({ length: r.seats }, (_, k) => k + 1) : r.seats;
    if (numbers.length === 0) errors.push({ path: `/layout/rows/${i}/seats`, message: 'a row needs at least one seat' });
    const inRow = new Set(numbers);
    for (const a of r.accessible ?? []) {
      if (!inRow.has(a)) errors.push({ path: `/layout/rows/${i}/accessible`, message: `seat ${a} is not in row ${r.row}` });
    }
    const accessible = new Set(r.accessible ?? []);
    for (const n of numbers) {
      const id = seatId(r.row, n, r.section);
      if (seen.has(id)) {
        errors.push({ path: `/layout/rows/${i}`, message: `seat ${id} appears twice` });
        continue;
      }
      seen.add(id);
      seats.push({ seat_id: id, row: r.row, number: n, section: r.section ?? null, tier: r.tier, accessible: accessible.has(n) });
    }
  });
  if (errors.length) throw validationFailed('the layout is not valid', errors.slice(0, 20));
  return seats;
}

export function tiersOf(seats: readonly HallSeat[]): Set<string> {
  return new Set(seats.map((s) => s.tier));
}
