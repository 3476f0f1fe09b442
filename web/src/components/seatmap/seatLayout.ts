// Where each seat goes on the drawn map: rows in the hall's order (top to bottom), seats
// by number (left to right), rows of one section under that section's title. Also the
// rows as the keyboard walks them. (Imports carry `.js` so the tests, type-checked as
// Node ESM, can import this file too.)
import type { Seat } from '../../api/types.js';

export const PITCH = 28;
export const ROW_HEIGHT = 30;
const LABEL_WIDTH = 40;
const SECTION_TITLE = 30;
const STAGE = 56;

export interface PlacedSeat { seat: Seat; x: number; y: number }
export interface PlacedRow { key: string; row: string; section: string | undefined; tier: string; y: number; x0: number; x1: number; seats: PlacedSeat[] }
export interface PlacedSection { section: string | undefined; y: number; rows: PlacedRow[] }

export interface MapLayout {
  width: number;
  height: number;
  stageY: number;
  sections: PlacedSection[];
  /** Every row, top to bottom: what arrow keys move through. */
  rows: PlacedRow[];
  /** Seat id → its row's index in `rows` and its index in that row. */
  where: Map<string, { row: number; index: number }>;
}

export function layoutSeats(seats: Seat[]): MapLayout {
  // Group by section, then row, keeping the order the hall lists them in.
  const bySection = new Map<string | undefined, Map<string, Seat[]>>();
  for (const s of seats) {
    let rows = bySection.get(s.section);
    if (!rows) bySection.set(s.section, (rows = new Map()));
    let row = rows.get(s.row);
    if (!row) rows.set(s.row, (row = []));
    row.push(s);
  }
  const titled = bySection.size > 1 || [...bySection.keys()][0] !== undefined;
  let maxColumns = 1;
  for (const rows of bySection.values()) {
    for (const row of rows.values()) {
      const numbers = row.map((s) => s.number);
      maxColumns = Math.max(maxColumns, Math.max(...numbers) - Math.min(...numbers) + 1);
    }
  }
  const width = LABEL_WIDTH * 2 + maxColumns * PITCH;
  const sections: PlacedSection[] = [];
  const all: PlacedRow[] = [];
  const where = new Map<string, { row: number; index: number }>();
  let y = STAGE;
  for (const [section, rows] of bySection) {
    const placed: PlacedSection = { section, y, rows: [] };
    if (titled) y += SECTION_TITLE;
    for (const [row, rowSeats] of rows) {
      const ordered = [...rowSeats].sort((a, b) => a.number - b.number);
      const first = ordered[0]!.number;
      const span = (ordered[ordered.length - 1]!.number - first + 1) * PITCH;
      // Centre each row, as halls are drawn: short rows sit in the middle.
      const left = LABEL_WIDTH + (maxColumns * PITCH - span) / 2;
      const cy = y + ROW_HEIGHT / 2;
      const placedSeats = ordered.map((seat) => ({ seat, x: left + (seat.number - first) * PITCH + PITCH / 2, y: cy }));
      const r: PlacedRow = { key: `${section ?? ''}/${row}`, row, section, tier: ordered[0]!.tier, y: cy, x0: left, x1: left + span, seats: placedSeats };
      placedSeats.forEach((p, index) => where.set(p.seat.seat, { row: all.length, index }));
      placed.rows.push(r);
      all.push(r);
      y += ROW_HEIGHT;
    }
    sections.push(placed);
    y += 10;
  }
  return { width, height: y + 4, stageY: 8, sections, rows: all, where };
}

/** The seat an arrow key (or Home/End) moves to from `seatId`, or null to stay. */
export function seatToward(layout: MapLayout, seatId: string, key: string): string | null {
  const at = layout.where.get(seatId);
  if (!at) return null;
  const row = layout.rows[at.row]!;
  const here = row.seats[at.index]!;
  switch (key) {
    case 'ArrowLeft': return row.seats[at.index - 1]?.seat.seat ?? null;
    case 'ArrowRight': return row.seats[at.index + 1]?.seat.seat ?? null;
    case 'Home': return row.seats[0]!.seat.seat;
    case 'End': return row.seats[row.seats.length - 1]!.seat.seat;
    case 'ArrowUp':
    case 'ArrowDown': {
      const next = layout.rows[at.row + (key === 'ArrowUp' ? -1 : 1)];
      if (!next) return null;
      // The seat of that row nearest below/above this one.
      let best = next.seats[0]!;
      for (const p of next.seats) if (Math.abs(p.x - here.x) < Math.abs(best.x - here.x)) best = p;
      return best.seat.seat;
    }
    default: return null;
  }
}
