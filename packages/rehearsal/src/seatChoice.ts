// How a virtual buyer chooses seats: the best ones are wanted most. Seats are
// ranked front row first and, within a row, nearest the middle first; a buyer
// starts at a rank drawn with a bias to the top and takes the seats next to it in
// its row, filling up with the next best seats when the row has no more.
import type { Random } from '@boxoffice/paysim';

export interface MapSeat {
  seat: string;
  status: string;
  row: string;
  number: number;
  section?: string;
}

export interface SectionSummary {
  section: string;
  available: number;
}

/** An index in [0, n) drawn with a bias to 0 (the square of a uniform draw). */
export function biasedIndex(n: number, random: Random): number {
  const u = random();
  return Math.min(n - 1, Math.floor(n * u * u));
}

/** The available seats, best first. */
export function rankSeats(seats: readonly MapSeat[]): MapSeat[] {
  const rows = [...new Set(seats.map((s) => s.row))].sort((a, b) => a.length - b.length || a.localeCompare(b));
  const rowRank = new Map(rows.map((r, i) => [r, i]));
  const middle = new Map<string, number>();
  for (const s of seats) middle.set(s.row, Math.max(middle.get(s.row) ?? 0, s.number));
  const score = (s: MapSeat) => rowRank.get(s.row)! + Math.abs(s.number - (middle.get(s.row)! + 1) / 2) / Math.max(1, middle.get(s.row)!);
  return seats.filter((s) => s.status === 'available').sort((a, b) => score(a) - score(b));
}

/** Up to `want` seats from `ranked` (available, best first): adjacent in one row where it can. */
export function chooseSeats(ranked: readonly MapSeat[], want: number, random: Random): string[] {
  if (ranked.length === 0) return [];
  const start = ranked[biasedIndex(ranked.length, random)]!;
  const row = ranked.filter((s) => s.row === start.row && s.section === start.section).sort((a, b) => a.number - b.number);
  const at = row.indexOf(start);
  let lo = at;
  let hi = at;
  while (hi - lo + 1 < want) {
    const left = lo > 0 && row[lo - 1]!.number === row[lo]!.number - 1;
    const right = hi < row.length - 1 && row[hi + 1]!.number === row[hi]!.number + 1;
    if (right) hi++;
    else if (left) lo--;
    else break;
  }
  const chosen = row.slice(lo, hi + 1).map((s) => s.seat);
  for (const s of ranked) {
    if (chosen.length >= want) break;
    if (!chosen.includes(s.seat)) chosen.push(s.seat);
  }
  return chosen;
}

/** A section with room for `want` seats, the lower-numbered (better) ones wanted most; null when none has. */
export function chooseSection(sections: readonly SectionSummary[], want: number, random: Random): string | null {
  const open = sections.filter((s) => s.available >= want).sort((a, b) => a.section.localeCompare(b.section, 'en', { numeric: true }));
  const fallback = sections.filter((s) => s.available > 0);
  const from = open.length > 0 ? open : fallback;
  return from.length === 0 ? null : from[biasedIndex(from.length, random)]!.section;
}
