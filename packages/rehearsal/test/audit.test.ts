// The rehearsal's audit on crafted books: clean books pass, each planted violation fails its check.
import { describe, expect, it } from 'vitest';
import { audit, type Books } from '../src/audit.js';

function cleanBooks(): Books {
  return {
    charges: [
      { id: 'pi_1', status: 'succeeded', amount: 2000, currency: 'EUR', bookingId: 'bkg_1', holdId: 'hld_1' },
      { id: 'pi_2', status: 'succeeded', amount: 1000, currency: 'EUR', bookingId: 'bkg_2', holdId: 'hld_2' },
      { id: 'pi_3', status: 'requires_payment_method', amount: 1000, currency: 'EUR', bookingId: 'bkg_3', holdId: 'hld_3' },
    ],
    // bkg_2 lost its seats: paid, refunded automatically.
    refunds: [{ id: 're_1', paymentIntent: 'pi_2', status: 'succeeded', amount: 1000 }],
    bookings: [
      { id: 'bkg_1', showId: 'shw_1', holdId: 'hld_1', status: 'confirmed', seats: ['A1', 'A2'] },
      { id: 'bkg_2', showId: 'shw_1', holdId: 'hld_2', status: 'refunded', seats: ['A2'] },
      { id: 'bkg_3', showId: 'shw_1', holdId: 'hld_3', status: 'failed', seats: ['B1'] },
    ],
    unknownBookings: [],
    maps: [{ showId: 'shw_1', booked: ['A1', 'A2'], doubleSold: 0 }],
    holds: [{ id: 'hld_1', status: 'confirmed' }, { id: 'hld_2', status: 'expired' }, { id: 'hld_3', status: 'released' }],
  };
}

const failing = (b: Books) => audit(b).checks.filter((c) => c.count > 0).map((c) => c.name);

describe('the rehearsal audit', () => {
  it('passes books that agree', () => {
    const r = audit(cleanBooks());
    expect(r.ok).toBe(true);
    expect(r.checks.map((c) => c.count)).toEqual([0, 0, 0, 0, 0]);
    expect(r.foreign).toEqual({ count: 0, succeeded: 0, amounts: {}, examples: [] });
  });

  it('fails on a charge whose booking could not be read', () => {
    const b = cleanBooks();
    b.charges.push({ id: 'pi_9', status: 'succeeded', amount: 1000, currency: 'EUR', bookingId: 'bkg_missing', holdId: 'hld_9' });
    expect(audit(b).ok).toBe(false);
    expect(failing(b)).toEqual(['charges without a confirmed booking or a refund']);
  });

  it('reports charges not made by this service apart, and still fails on its own', () => {
    const b = cleanBooks();
    b.charges.push(
      { id: 'pi_x1', status: 'succeeded', amount: 4200, currency: 'EUR', bookingId: 'bkg_elsewhere', holdId: 'hld_elsewhere' },
      { id: 'pi_x2', status: 'succeeded', amount: 500, currency: 'USD', bookingId: null, holdId: null },
      { id: 'pi_x3', status: 'requires_payment_method', amount: 900, currency: 'EUR', bookingId: 'bkg_elsewhere', holdId: 'hld_elsewhere' },
    );
    b.unknownBookings = ['bkg_elsewhere'];
    const r = audit(b);
    expect(r.ok).toBe(true);
    expect(r.foreign).toEqual({
      count: 3, succeeded: 2, amounts: { EUR: 4200, USD: 500 },
      examples: ['pi_x1 (booking bkg_elsewhere)', 'pi_x2 (booking none)', 'pi_x3 (booking bkg_elsewhere)'],
    });
    // A second charge for one of this service's bookings is still this service's.
    b.charges.push({ id: 'pi_own', status: 'succeeded', amount: 2000, currency: 'EUR', bookingId: 'bkg_1', holdId: 'hld_1' });
    expect(failing(b)).toEqual(['bookings charged twice']);
    expect(audit(b).foreign.count).toBe(3);
  });

  it('fails on a succeeded charge of a failed booking that was not refunded', () => {
    const b = cleanBooks();
    b.charges[2]!.status = 'succeeded';
    expect(failing(b)).toEqual(['charges without a confirmed booking or a refund']);
  });

  it('fails on a seat in two confirmed bookings, and on the stats counting a double sale', () => {
    const b = cleanBooks();
    b.bookings[1]!.status = 'confirmed';
    b.refunds = [];
    expect(failing(b)).toContain('seats sold twice');
    const c = cleanBooks();
    c.maps[0]!.doubleSold = 1;
    expect(failing(c)).toEqual(['seats sold twice']);
  });

  it('fails when the map and the confirmed bookings disagree', () => {
    const b = cleanBooks();
    b.maps[0]!.booked = ['A1'];
    expect(failing(b)).toEqual(['map-booked seats ≠ seats of confirmed bookings']);
    b.maps[0]!.booked = ['A1', 'A2', 'C9'];
    expect(audit(b).checks[1]!.examples).toEqual(['shw_1/C9 booked on the map, in no confirmed booking']);
  });

  it('fails on a booking charged twice, not when the second charge was refunded', () => {
    const b = cleanBooks();
    b.charges.push({ id: 'pi_4', status: 'succeeded', amount: 2000, currency: 'EUR', bookingId: 'bkg_1', holdId: 'hld_1' });
    expect(failing(b)).toEqual(['bookings charged twice']);
    b.refunds.push({ id: 're_2', paymentIntent: 'pi_4', status: 'succeeded', amount: 2000 });
    expect(audit(b).ok).toBe(true);
  });

  it('fails on a hold left paying or a booking left pending', () => {
    const b = cleanBooks();
    b.holds[1]!.status = 'paying';
    expect(failing(b)).toEqual(['seats left paying (holds paying, bookings pending) after the run']);
    const c = cleanBooks();
    c.bookings[2]!.status = 'pending';
    expect(failing(c)).toEqual(['seats left paying (holds paying, bookings pending) after the run']);
  });
});
