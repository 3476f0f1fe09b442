// The show page's map logic without a browser: deltas applied in version order only, seats
// placed by row and number, and where the arrow keys go.
import { describe, expect, it } from 'vitest';
import { applyDelta } from '../../web/src/live/seatDeltas.js';
import { layoutSeats, seatToward } from '../../web/src/components/seatmap/seatLayout.js';
import type { Seat } from '../../web/src/api/types.js';

const row = (r: string, numbers: number[], section?: string): Seat[] => numbers.map((n) => ({
  seat: `${section ? `${section}-` : ''}${r}${n}`, status: 'available', tier: 'standard', price: 1000, row: r, number: n, ...(section ? { section } : {}),
}));

describe('seat map logic', () => {
  it('applies a delta newer than the map, and ignores one that is not', () => {
    const seats = row('A', [1, 2, 3]);
    const next = applyDelta(seats, 5, { version: 6, changes: [{ seat: 'A2', status: 'held' }, { seat: 'Z9', status: 'booked' }] });
    expect(next.map((s) => s.status)).toEqual(['available', 'held', 'available']);
    // Seats the delta does not touch stay the same objects (they are not redrawn).
    expect(next[0]).toBe(seats[0]);
    expect(applyDelta(next, 6, { version: 6, changes: [{ seat: 'A2', status: 'available' }] })).toBe(next);
    expect(applyDelta(next, 6, { version: 4, changes: [{ seat: 'A1', status: 'booked' }] })).toBe(next);
  });

  it('places seats by number, centres short rows, and moves the keyboard to the nearest seat', () => {
    const layout = layoutSeats([...row('A', [1, 2, 3, 4, 5, 6]), ...row('B', [3, 4]), ...row('C', [1, 2, 5, 6])]);
    expect(layout.rows.map((r) => r.row)).toEqual(['A', 'B', 'C']);
    const x = (id: string) => layout.rows.flatMap((r) => r.seats).find((p) => p.seat.seat === id)!.x;
    // B3..B4 sit under A3..A4; C keeps its gap between 2 and 5.
    expect(x('B3')).toBe(x('A3'));
    expect(x('C5') - x('C2')).toBe(x('A5') - x('A2'));
    expect(seatToward(layout, 'A1', 'ArrowRight')).toBe('A2');
    expect(seatToward(layout, 'A1', 'ArrowLeft')).toBeNull();
    expect(seatToward(layout, 'A1', 'ArrowDown')).toBe('B3');
    expect(seatToward(layout, 'B4', 'ArrowDown')).toBe('C5');
    expect(seatToward(layout, 'C1', 'ArrowDown')).toBeNull();
    expect(seatToward(layout, 'C1', 'End')).toBe('C6');
    expect(seatToward(layout, 'A6', 'Home')).toBe('A1');
  });

  it('puts each section\'s rows under its own title', () => {
    const layout = layoutSeats([...row('A', [1, 2], '101'), ...row('B', [1, 2], '101'), ...row('A', [1, 2], '102')]);
    expect(layout.sections.map((s) => [s.section, s.rows.map((r) => r.row)])).toEqual([['101', ['A', 'B']], ['102', ['A']]]);
    expect(seatToward(layout, '101-B1', 'ArrowDown')).toBe('102-A1');
  });
});
