// The web app's pure pieces for issue #28's second pass, without a browser: where a venue
// plan puts its sections, the seat numbers over a section's columns, a live chart's time
// axis, the place a queue screen shows, and a new show's currency.
import { describe, expect, it } from 'vitest';
import { availabilityOf, planSections, ringsOf } from '../../web/src/components/seatmap/sectionPlan.js';
import { columnNumbers } from '../../web/src/components/seatmap/seatColumns.js';
import { layoutSeats } from '../../web/src/components/seatmap/seatLayout.js';
import { timeWindow } from '../../web/src/admin/timeWindow.js';
import { peopleAhead, placeInLine } from '../../web/src/queuePace.js';
import { venueCurrency, zoneCurrency } from '../../web/src/admin/venueCurrency.js';
import type { Seat, SectionSummary } from '../../web/src/api/types.js';

const summary = (section: string, price: number, available = 100, booked = 0): SectionSummary => ({ section, available, held: 0, booked, min_price: price, max_price: price });

describe('venue plan', () => {
  it('rings stadium numbers by their hundreds, nearest first, and goes round each ring in name order', () => {
    const names = ['201', '102', '101', '202', '103', '203', '204'];
    const sections = names.map((n) => summary(n, n.startsWith('1') ? 9500 : 6500));
    expect(ringsOf(sections, () => 0)).toEqual([1, 0, 0, 1, 0, 1, 1]);
    const plan = planSections(sections);
    expect(plan.sections.map((p) => p.summary.section)).toEqual(['101', '102', '103', '201', '202', '203', '204']);
    expect(plan.sections.map((p) => p.ring)).toEqual([0, 0, 0, 1, 1, 1, 1]);
    expect(plan.bands).toEqual([{ min: 9500, max: 9500 }, { min: 6500, max: 6500 }]);
    // The first of a ring is at the top, above the stage (y grows downwards).
    const centreY = 350;
    expect(plan.sections[0]!.labelY).toBeLessThan(centreY);
    expect(plan.sections[3]!.labelY).toBeLessThan(plan.sections[0]!.labelY);
    for (const p of plan.sections) expect(p.path).toMatch(/^M[\d.]+ [\d.]+A.*Z$/);
  });

  it('rings named sections by price, the dearest nearest the stage', () => {
    const sections = [summary('North', 3000), summary('Floor', 9000), summary('South', 3000), summary('Pit', 9000), summary('Gallery', 1500)];
    const plan = planSections(sections);
    const ringOf = (n: string) => plan.sections.find((p) => p.summary.section === n)!.ring;
    expect([ringOf('Floor'), ringOf('Pit'), ringOf('North'), ringOf('South'), ringOf('Gallery')]).toEqual([0, 0, 1, 1, 2]);
    // A lone section still draws (a ring less a hair, not an arc closed on itself).
    expect(planSections([summary('Hall', 1000)]).sections[0]!.path).not.toContain('NaN');
  });

  it('shades a section by the share of its seats still free', () => {
    expect(availabilityOf(summary('1', 1, 60, 40))).toBe('many');
    expect(availabilityOf(summary('1', 1, 20, 80))).toBe('some');
    expect(availabilityOf(summary('1', 1, 1, 99))).toBe('few');
    expect(availabilityOf(summary('1', 1, 0, 100))).toBe('none');
  });
});

describe('seat numbers over the columns', () => {
  const row = (r: string, numbers: number[]): Seat[] => numbers.map((n) => ({ seat: `${r}${n}`, status: 'available', tier: 't', price: 1, row: r, number: n }));
  it('labels a column with its number when every seat in it has that number', () => {
    const cols = columnNumbers(layoutSeats([...row('A', [1, 2, 3]), ...row('B', [1, 2, 3])]));
    expect(cols.map((c) => c.number)).toEqual([1, 2, 3]);
  });
  it('leaves out a column whose rows disagree (centred rows numbered differently)', () => {
    // B's two seats sit under A's 2 and 3 (centred), yet are numbered 1 and 2.
    const cols = columnNumbers(layoutSeats([...row('A', [1, 2, 3, 4]), ...row('B', [1, 2])]));
    expect(cols.map((c) => c.number)).toEqual([1, 4]);
  });
});

describe('a live chart\'s time axis', () => {
  it('spans the minute before the last sample, from the first sample on', () => {
    const now = 1_796_000_000;
    expect(timeWindow([], now)).toEqual([now - 60, now]);
    expect(timeWindow([now], now + 5)).toEqual([now - 60, now]);
    expect(timeWindow([now - 300, now - 1], now)).toEqual([now - 300, now - 1]);
  });
});

describe('a place in the queue', () => {
  it('counts from the front of those still waiting, so the place is one more than the people ahead', () => {
    expect(placeInLine(2, 1)).toBe(1);
    expect(peopleAhead(2, 1)).toBe(0);
    expect(placeInLine(3, 0)).toBe(3);
    expect(peopleAhead(3, 0)).toBe(2);
    expect(placeInLine(5, 9)).toBe(1);
    for (let position = 1; position < 50; position++) {
      for (let serving = 0; serving < 50; serving += 7) expect(placeInLine(position, serving)).toBe(peopleAhead(position, serving) + 1);
    }
  });
});

describe('a new show\'s currency', () => {
  it('is the venue\'s latest show\'s, else its zone\'s country\'s, else none', () => {
    expect(venueCurrency([], 'Asia/Kolkata')).toBe('INR');
    expect(venueCurrency([], 'Europe/Lisbon')).toBe('EUR');
    expect(venueCurrency([], 'Europe/London')).toBe('GBP');
    expect(venueCurrency([], 'Australia/Perth')).toBe('AUD');
    expect(venueCurrency([], 'America/Indiana/Indianapolis')).toBe('USD');
    expect(venueCurrency([], 'UTC')).toBeNull();
    expect(venueCurrency([], 'Asia/Tbilisi')).toBeNull();
    const shows = [{ starts_at: '2027-03-01T19:00:00.000Z', currency: 'USD' }, { starts_at: '2027-05-01T19:00:00.000Z', currency: 'INR' }, { starts_at: '2027-01-01T19:00:00.000Z', currency: 'EUR' }];
    expect(venueCurrency(shows, 'Europe/Paris')).toBe('INR');
    expect(zoneCurrency('Asia/Calcutta')).toBe('INR');
  });
});
