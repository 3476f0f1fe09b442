// The per-section summary and grouping of a map's seats (pure).
import { describe, expect, it } from 'vitest';
import { seatsBySection, summariseSections, type SectionedSeat } from '../../src/domain/seatSections.js';

const seat = (section: string | undefined, status: SectionedSeat['status'], price: number | null): SectionedSeat =>
  (section === undefined ? { status, price } : { section, status, price });

describe('summariseSections', () => {
  it('counts by status and takes prices over every seat, whatever its status, in first-seen order', () => {
    const seats = [
      seat('B', 'booked', 3000), seat('A', 'available', 5000), seat('B', 'held', 1000),
      seat('A', 'held', 7000), seat('B', 'available', 2000), seat(undefined, 'available', 1),
    ];
    expect(summariseSections(seats)).toEqual([
      { section: 'B', available: 1, held: 1, booked: 1, min_price: 1000, max_price: 3000 },
      { section: 'A', available: 1, held: 1, booked: 0, min_price: 5000, max_price: 7000 },
    ]);
  });

  it('a hall without sections has none; a section whose seats have no price has null prices', () => {
    expect(summariseSections([seat(undefined, 'available', 1000)])).toEqual([]);
    expect(summariseSections([seat('C', 'available', null)])).toEqual([{ section: 'C', available: 1, held: 0, booked: 0, min_price: null, max_price: null }]);
  });
});

describe('seatsBySection', () => {
  it('keeps map order within each section and leaves out seats without one', () => {
    const seats = [{ id: 1, section: 'X' }, { id: 2 }, { id: 3, section: 'Y' }, { id: 4, section: 'X' }];
    const grouped = seatsBySection(seats);
    expect([...grouped.keys()]).toEqual(['X', 'Y']);
    expect(grouped.get('X')!.map((s) => s.id)).toEqual([1, 4]);
  });
});
