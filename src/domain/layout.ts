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

/**
 * Where a section is drawn on the venue plan: a rectangle in a 1000 × 1000 box (x to
 * the right, y down; the stage at its centre, 500/500), turned `angle` degrees
 * clockwise about its own centre. The web app stretches the box to its plan.
 */
export interface SectionPlacement {
  x: number;
  y: number;
  w: number;
  h: number;
  angle?: number;
}

export interface LayoutSection {
  section: string;
  plan: SectionPlacement;
}

export interface Layout {
  rows: LayoutRow[];
  /** Optional: a drawing position for some or all sections; the others get a derived one. */
  sections?: LayoutSection[];
}

export const PLAN_BOX = 1000;

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

/**
 * Checks the layout's section placements against its rows: each names a section some
 * row has, at most once, lies inside the 0..PLAN_BOX box with a positive size and an
 * angle within ±180. Returns the placements by section (empty when none are given).
 */
export function checkSectionPlan(layout: Layout): Map<string, SectionPlacement> {
  const out = new Map<string, SectionPlacement>();
  const given = layout.sections ?? [];
  if (given.length === 0) return out;
  const known = new Set(layout.rows.map((r) => r.section).filter((s): s is string => s !== undefined));
  const errors: FieldError[] = [];
  given.forEach((entry, i) => {
    const at = `/layout/sections/${i}`;
    const p = entry.plan;
    if (!known.has(entry.section)) errors.push({ path: `${at}/section`, message: `no row of the layout is in section "${entry.section}"` });
    else if (out.has(entry.section)) errors.push({ path: `${at}/section`, message: `section "${entry.section}" is placed twice` });
    const finite = (['x', 'y', 'w', 'h'] as const).filter((k) => !Number.isFinite(p[k]));
    for (const k of finite) errors.push({ path: `${at}/plan/${k}`, message: 'must be a number' });
    if (finite.length === 0) {
      if (p.x < 0 || p.x > PLAN_BOX) errors.push({ path: `${at}/plan/x`, message: `must be within 0..${PLAN_BOX}` });
      if (p.y < 0 || p.y > PLAN_BOX) errors.push({ path: `${at}/plan/y`, message: `must be within 0..${PLAN_BOX}` });
      if (!(p.w > 0) || p.x + p.w > PLAN_BOX) errors.push({ path: `${at}/plan/w`, message: `must be above 0 and end within the box (x + w ≤ ${PLAN_BOX})` });
      if (!(p.h > 0) || p.y + p.h > PLAN_BOX) errors.push({ path: `${at}/plan/h`, message: `must be above 0 and end within the box (y + h ≤ ${PLAN_BOX})` });
    }
    if (p.angle !== undefined && !(Number.isFinite(p.angle) && p.angle >= -180 && p.angle <= 180)) {
      errors.push({ path: `${at}/plan/angle`, message: 'must be within -180..180 degrees' });
    }
    if (!out.has(entry.section)) {
      const placement: SectionPlacement = { x: p.x, y: p.y, w: p.w, h: p.h };
      if (p.angle !== undefined && p.angle !== 0) placement.angle = p.angle;
      out.set(entry.section, placement);
    }
  });
  if (errors.length) throw validationFailed('the layout is not valid', errors.slice(0, 20));
  return out;
}
