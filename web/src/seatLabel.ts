// How a seat is written on every page: "Row F, seat 7", in a stadium "Section 101, row F,
// seat 7". The map's names, the selection, checkout, bookings and tickets all come here.
import type { Seat } from './api/types';

/** A seat the map describes (row, number, section) → "Row F, seat 7". */
export function seatName(seat: Pick<Seat, 'row' | 'number' | 'section'>): string {
  return `${seat.section ? `Section ${seat.section}, row` : 'Row'} ${seat.row}, seat ${seat.number}`;
}

/** A seat id from the API ("F7", "101-F7") → the same words as seatName; "Seat X" for an id of another shape. */
export function seatLabel(id: string): string {
  // Ids are "<row><number>" or "<section>-<row><number>" (src/domain/layout.ts): a row of
  // letters can be told from its number; a row of digits cannot, so such an id stays whole.
  const m = /^(?:(.+)-)?([A-Za-z]+)(\d+)$/.exec(id);
  if (!m) return `Seat ${id}`;
  const [, section, row, number] = m;
  return seatName({ row: row!, number: Number(number), section });
}

/** Seat ids as one sentence part: "Row F, seat 7; Row F, seat 8". */
export const seatList = (ids: string[]): string => ids.map(seatLabel).join('; ');
