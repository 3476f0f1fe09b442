// The unique safety net: a seat of a show can be sold once, whatever the code above does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers } from '../support/catalog.js';
import { sqlState } from '../../src/db/sqlstate.js';

describe('booking_seats_sold_once', () => {
  let t: TestService;
  beforeAll(async () => { t = await startTestService({ sweeper: false }); });
  afterAll(async () => { await t?.close(); });

  it('refuses a second sold row for the same seat of a show (23505), allows an unsold one', async () => {
    const db = t.service.ctx.db;
    const { showId } = await createShow(t, { rows: 1, seatsPerRow: 4 });
    const [a, b] = await registerBuyers(t, 2);
    const holdA = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A1'] }, a!.token);
    const holdB = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A2'] }, b!.token);
    expect([holdA.status, holdB.status]).toEqual([201, 201]);
    for (const [id, hold, user] of [['bkg_a', holdA, a!], ['bkg_b', holdB, b!]] as const) {
      await db.query(
        `insert into bookings (id, hold_id, user_id, show_id, amount, currency, status) values ($1, $2, $3, $4, 1000, 'EUR', 'confirmed')`,
        [id, hold.body.hold_id, user.userId, showId],
      );
    }
    await db.query(`insert into booking_seats (booking_id, show_id, seat_id, sold) values ('bkg_a', $1, 'A1', true)`, [showId]);
    // A cancelled (unsold) row for the same seat is fine…
    await db.query(`insert into booking_seats (booking_id, show_id, seat_id, sold) values ('bkg_b', $1, 'A1', false)`, [showId]);
    // …a second sale is not.
    const second = await db.query(`update booking_seats set sold = true where booking_id = 'bkg_b' and seat_id = 'A1'`).catch((err: unknown) => err);
    expect(sqlState(second)).toBe('23505');
    const sold = await db.query<{ n: number }>(`select count(*) as n from booking_seats where show_id = $1 and seat_id = 'A1' and sold`, [showId]);
    expect(sold.rows[0]!.n).toBe(1);
  });
});
