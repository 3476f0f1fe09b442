// The seat number over each column of a drawn map. Pure. (Imports carry `.js` so the
// tests, type-checked as Node ESM, can import this file too.)
import type { MapLayout } from './seatLayout.js';

/** Column x (map units) → the seat number every seat in that column has. */
export function columnNumbers(layout: MapLayout): { x: number; number: number }[] {
  const byX = new Map<number, number | null>();
  for (const row of layout.rows) {
    for (const { seat, x } of row.seats) {
      const was = byX.get(x);
      if (was === undefined) byX.set(x, seat.number);
      else if (was !== seat.number) byX.set(x, null);
    }
  }
  return [...byX].filter((e): e is [number, number] => e[1] !== null).map(([x, number]) => ({ x, number })).sort((a, b) => a.x - b.x);
}
