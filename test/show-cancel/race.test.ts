// The race between a show's cancellation and the purchase path (DESIGN.md invariants
// 2 and 4): claims fired at the same moment as the cancellation, over real parallel
// connections, many trials. A claim that started before the cancellation committed
// may win its seats, but its hold must be released with the rest: no live hold, no
// held seat remains. Payments raced against the cancellation end either refused
// (409 SHOW_CANCELLED, nothing charged) or cancelled by the organiser and refunded:
// the simulator's charges minus its refunds are zero.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { closeService, holdSeats, newKey, outboxSettled, postBooking, retrying, startService, until } from '../bookings/helpers.js';

const TRIALS = 15;
const CLAIMS = 16;

describe('cancelling a show while buyers claim and pay', () => {
  let t: TestService;
  let buyers: Buyer[];

  beforeAll(async () => {
    t = await startService({ payments: {}, config: { poolSize: 24 } });
    buyers = await retrying('registering buyers', () => registerBuyers(t, CLAIMS));
  });
  afterAll(async () => { await closeService(t); });

  const count = async (sql: string, showId: string) => Number((await t.service.ctx.db.query<{ n: string }>(sql, [showId])).rows[0]!.n);

  it(`claims racing the cancellation leave no live hold and no held seat (${TRIALS} trials x ${CLAIMS} claims)`, async () => {
    const answers: Record<string, number> = {};
    for (let trial = 0; trial < TRIALS; trial++) {
      const { showId, seats } = await createShow(t, { rows: 2, seatsPerRow: CLAIMS });
      const claims = buyers.map((b, i) => t.http.post(`/v1/shows/${showId}/holds`, { seats: [seats[2 * i]!, seats[2 * i + 1]!] }, b.token));
      // The cancellation lands among the claims: some before it, some after.
      const cancel = new Promise((r) => setTimeout(r, trial % 4)).then(() => t.http.post(`/v1/admin/shows/${showId}/cancel`, { reason: `race ${trial}` }, t.adminToken));
      const [done, cancelled] = await Promise.all([Promise.all(claims), cancel]);
      expect(cancelled.status).toBe(202);
      for (const r of done) {
        const key = `${r.status} ${r.body.code ?? ''}`.trim();
        answers[key] = (answers[key] ?? 0) + 1;
        expect([201, 409]).toContain(r.status);
        if (r.status === 409) expect(r.body.code).toBe('SHOW_CANCELLED');
      }
      expect(await count(`select count(*) as n from holds where show_id = $1 and status in ('active', 'paying')`, showId)).toBe(0);
      expect(await count(`select count(*) as n from show_seats where show_id = $1 and status <> 'available'`, showId)).toBe(0);
      // And afterwards nothing is holdable.
      const late = await t.http.post(`/v1/shows/${showId}/holds`, { seats: [seats[0]!] }, buyers[0]!.token);
      expect(late.body.code).toBe('SHOW_CANCELLED');
    }
    // Both sides of the race were seen (a trial where every claim came first or last proves less).
    process.stdout.write(`[race] claim answers: ${JSON.stringify(answers)}\n`);
    expect(answers['201'] ?? 0).toBeGreaterThan(0);
    expect(answers['409 SHOW_CANCELLED'] ?? 0).toBeGreaterThan(0);
  });

  it('payments racing the cancellation are refused or refunded in full: charges minus refunds is zero', async () => {
    const outcomes: Record<string, number> = {};
    const bookingIds: string[] = [];
    for (let trial = 0; trial < 6; trial++) {
      const { showId, seats } = await createShow(t, { rows: 1, seatsPerRow: 8 });
      const holds = await Promise.all(buyers.slice(0, 8).map((b, i) => holdSeats(t, showId, [seats[i]!], b.token)));
      const pays = holds.map((h, i) => postBooking(t, { hold_id: h, payment_method: 'pm_card_visa' }, buyers[i]!.token, newKey('race')));
      const cancel = new Promise((r) => setTimeout(r, trial * 3)).then(() => t.http.post(`/v1/admin/shows/${showId}/cancel`, { reason: 'race' }, t.adminToken));
      const [paid] = await Promise.all([Promise.all(pays), cancel]);
      for (const r of paid) {
        const key = `${r.status} ${r.body.code ?? r.body.status}`;
        outcomes[key] = (outcomes[key] ?? 0) + 1;
        if (r.status === 201) bookingIds.push(r.body.booking_id as string);
        else expect(r.body.code).toBe('SHOW_CANCELLED');
      }
      await until('the cancellation completed', async () => (await t.http.get(`/v1/admin/shows/${showId}/cancellation`, t.adminToken)).body.completed === true);
      expect(await count(`select count(*) as n from bookings where show_id = $1 and status in ('confirmed', 'pending')`, showId)).toBe(0);
    }
    await until('every refund sent', () => outboxSettled(t), 60_000);
    process.stdout.write(`[race] payment answers: ${JSON.stringify(outcomes)}\n`);
    const store = t.simulator!.ctx.store;
    const mine = new Set(bookingIds);
    const charged = store.paymentIntents.all().filter((pi) => mine.has(pi.metadata.booking_id!) && pi.status === 'succeeded');
    const refunds = store.refunds.all().filter((r) => mine.has(r.metadata.booking_id!));
    expect(charged.length).toBe(bookingIds.length);
    expect(refunds.length).toBe(charged.length);
    expect(charged.reduce((s, pi) => s + pi.amount_received, 0) - refunds.reduce((s, r) => s + r.amount, 0)).toBe(0);
    for (const id of bookingIds) {
      const b = (await t.http.get(`/v1/bookings/${id}`, t.adminToken)).body;
      expect(b).toMatchObject({ status: 'cancelled', cancelled_by: 'organiser', refund: { status: 'succeeded', amount: b.amount } });
    }
  });
});
