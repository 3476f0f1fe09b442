// A large hall's map in parts: the per-section summary and one section's seats.
// Pure: no I/O. Works on the map's seats as the map shows them.
/** A seat's status as the map shows it (a paying hold shows as held, an expired one as available). */
export type MapStatus = 'available' | 'held' | 'booked';

export interface SectionedSeat {
  status: MapStatus;
  price: number | null;
  section?: string;
}

export interface SectionSummary {
  section: string;
  available: number;
  held: number;
  booked: number;
  /** Over all the section's seats, whatever their status; null when no seat has a price. */
  min_price: number | null;
  max_price: number | null;
}

/** One summary per section, in the order the sections first appear; [] for a hall without sections. */
export function summariseSections(seats: readonly SectionedSeat[]): SectionSummary[] {
  const bySection = new Map<string, SectionSummary>();
  for (const s of seats) {
    if (s.section === undefined) continue;
    let sum = bySection.get(s.section);
    if (!sum) {
      sum = { section: s.section, available: 0, held: 0, booked: 0, min_price: null, max_price: null };
      bySection.set(s.section, sum);
    }
    sum[s.status]++;
    if (s.price !== null) {
      if (sum.min_price === null || s.price < sum.min_price) sum.min_price = s.price;
      if (sum.max_price === null || s.price > sum.max_price) sum.max_price = s.price;
    }
  }
  return [...bySection.values()];
}

/** The seats of each section, in map order (seats without a section are in none). */
export function seatsBySection<T extends { section?: string | null }>(seats: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const s of seats) {
    if (!s.section) continue;
    let list = out.get(s.section);
    if (!list) out.set(s.section, (list = []));
    list.push(s);
  }
  return out;
}
