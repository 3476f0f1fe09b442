import { describe, expect, it } from 'vitest';
import { expandLayout, seatId } from '../../src/domain/layout.js';
import { DomainError } from '../../src/domain/errors.js';

describe('expandLayout', () => {
  it('numbers seats 1..n, keeps layout order and marks accessible seats', () => {
    const seats = expandLayout({ rows: [{ row: 'A', seats: 3, tier: 'standard', accessible: [1] }, { row: 'B', seats: [2, 4], tier: 'premium' }] });
    expect(seats.map((s) => s.seat_id)).toEqual(['A1', 'A2', 'A3', 'B2', 'B4']);
    expect(seats.filter((s) => s.accessible).map((s) => s.seat_id)).toEqual(['A1']);
    expect(seats[3]).toMatchObject({ row: 'B', number: 2, tier: 'premium', section: null });
  });

  it('prefixes the section: 101-F7', () => {
    expect(seatId('F', 7, '101')).toBe('101-F7');
    expect(expandLayout({ rows: [{ row: 'F', seats: 1, tier: 't', section: '101' }] })[0]!.seat_id).toBe('101-F1');
  });

  it('rejects a seat that appears twice, accessible seats outside the row, and halls over 100,000 seats', () => {
    const codeOf = (f: () => unknown) => {
      try { f(); } catch (err) { return (err as DomainError).code; }
      return 'no error';
    };
    expect(codeOf(() => expandLayout({ rows: [{ row: 'A', seats: 2, tier: 't' }, { row: 'A', seats: 1, tier: 't' }] }))).toBe('VALIDATION_FAILED');
    expect(codeOf(() => expandLayout({ rows: [{ row: 'A', seats: 2, tier: 't', accessible: [3] }] }))).toBe('VALIDATION_FAILED');
    expect(codeOf(() => expandLayout({ rows: [{ row: 'A', seats: 100_000, tier: 't' }, { row: 'B', seats: 1, tier: 't' }] }))).toBe('VALIDATION_FAILED');
    expect(expandLayout({ rows: [{ row: 'A', seats: 100_000, tier: 't' }] })).toHaveLength(100_000);
  });

  it('holds exactly 100,000 seats over many rows and refuses one more, naming the row that passes the cap', () => {
    const rows = (last: number | number[]) => [
      ...Array.from({ length: 9 }, (_, i) => ({ row: `R${i}`, seats: 10_000, tier: 't' })),
      { row: 'Z', seats: last, tier: 't' },
    ];
    expect(expandLayout({ rows: rows(10_000) })).toHaveLength(100_000);
    expect(expandLayout({ rows: rows(Array.from({ length: 10_000 }, (_, k) => k + 1)) })).toHaveLength(100_000);
    for (const over of [10_001, Array.from({ length: 10_001 }, (_, k) => k + 1)]) {
      let err: unknown;
      try { expandLayout({ rows: rows(over) }); } catch (e) { err = e; }
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).code).toBe('VALIDATION_FAILED');
      expect((err as DomainError).extensions).toEqual({ errors: [{ path: '/layout/rows/9/seats', message: expect.stringMatching(/at most 100,000 seats/) }] });
    }
  });

  it('counts before expanding: 10,000 rows of 100,000 seats are refused in milliseconds', () => {
    const started = performance.now();
    expect(() => expandLayout({ rows: Array.from({ length: 10_000 }, (_, i) => ({ row: `R${i}`, seats: 100_000, tier: 't' })) })).toThrow(DomainError);
    expect(performance.now() - started).toBeLessThan(50);
  });
});
