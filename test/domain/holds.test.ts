import { describe, expect, it } from 'vitest';
import { checkRequestedSeats, refusal } from '../../src/domain/holds.js';
import { checkShowSettings } from '../../src/domain/shows.js';
import { type DomainError } from '../../src/domain/errors.js';

const hall = new Set(['A1', 'A2', 'A3']);

function thrown(f: () => unknown): DomainError | null {
  try { f(); } catch (err) { return err as DomainError; }
  return null;
}

describe('hold rules', () => {
  it('accepts known, distinct seats', () => {
    expect(thrown(() => checkRequestedSeats(['A1', 'A3'], hall))).toBeNull();
  });

  it('names duplicated and unknown seats by position', () => {
    const err = thrown(() => checkRequestedSeats(['A1', 'A1', 'Z9'], hall))!;
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.extensions.errors).toEqual([
      { path: '/seats/1', message: 'seat A1 is requested twice' },
      { path: '/seats/2', message: 'seat Z9 does not exist in this hall' },
    ]);
  });

  it('maps claim outcomes to the contract codes and statuses', () => {
    expect(refusal('seat_unavailable', { taken: ['A2'] })).toMatchObject({ code: 'SEAT_UNAVAILABLE', status: 409, extensions: { taken: ['A2'] } });
    expect(refusal('limit_exceeded')).toMatchObject({ code: 'LIMIT_EXCEEDED', status: 409 });
    expect(refusal('sale_not_open')).toMatchObject({ code: 'SALE_NOT_OPEN', status: 403 });
    expect(refusal('sale_closed')).toMatchObject({ code: 'SALE_CLOSED', status: 403 });
    expect(refusal('queue_required')).toMatchObject({ code: 'QUEUE_REQUIRED', status: 403 });
    expect(refusal('too_many_seats')).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    expect(refusal('show_not_found')).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it('says what a buyer can act on: the limit and the seats already theirs, when the sale opens', () => {
    const limit = refusal('limit_exceeded', { seatLimit: 4, seatsHad: 3 });
    expect(limit.extensions).toEqual({ per_user_limit: 4, seats_already_yours: 3 });
    expect(limit.message).toBe('you already have 3 of the 4 seats one buyer may have for this show');
    const opens = new Date('2026-12-02T09:00:00Z');
    expect(refusal('sale_not_open', { opensAt: opens })).toMatchObject({
      message: 'the sale for this show opens at 2026-12-02T09:00:00.000Z', extensions: { sale_opens_at: '2026-12-02T09:00:00.000Z' },
    });
    expect(refusal('too_many_seats', { seatLimit: 6 }).extensions).toEqual({ errors: [{ path: '/seats', message: 'at most 6 seats per buyer for this show' }] });
  });
});

describe('show settings', () => {
  it('needs a price for every tier of the hall and a sale that opens before the show', () => {
    const base = { starts_at: '2026-12-01T20:00:00Z', sale_opens_at: null, price_tiers: { standard: 100 } };
    expect(thrown(() => checkShowSettings(base, ['standard']))).toBeNull();
    expect(thrown(() => checkShowSettings(base, ['standard', 'premium']))?.extensions.errors).toEqual([
      { path: '/price_tiers/premium', message: 'the hall uses tier "premium", which needs a price' },
    ]);
    expect(thrown(() => checkShowSettings({ ...base, sale_opens_at: '2026-12-02T00:00:00Z' }, ['standard']))?.code).toBe('VALIDATION_FAILED');
  });
});
