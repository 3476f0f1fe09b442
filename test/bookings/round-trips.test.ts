// What a paid booking sends to PostgreSQL on its request path, counted by the service
// itself (src/db/trips.ts, /metrics boxoffice_db_*_total{origin="request"}): two
// statements, two commits — the key claimed with the hold entering payment, then the
// booking confirmed with the answer stored. The cases that leave the fast path (a
// repeat, a hold that cannot be paid) still answer as API.md says, and the aborted
// first statement leaves nothing behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { closeService, expectProblem, expectStatus, holdSeats, newKey, postBooking, retrying, startService } from './helpers.js';

describe('the paid booking’s round trips', () => {
  let t: TestService;
  let showId: string;
  let alice: Buyer;

  beforeAll(async () => {
    t = await startService({ payments: {}, workers: false });
    // No webhooks: the request path alone talks to the database while a booking runs.
    t.simulator!.ctx.webhooks.setEndpoint(null);
    ({ showId } = await retrying('creating the show', () => createShow(t, { rows: 1, seatsPerRow: 8 })));
    [alice] = (await retrying('registering a buyer', () => registerBuyers(t, 1))) as [Buyer];
  });
  afterAll(async () => { await closeService(t); });

  /** The request path's counters from /metrics. */
  async function requestPath(): Promise<{ roundTrips: number; commits: number }> {
    const r = await t.http.get('/metrics');
    expectStatus(r, 200);
    const read = (name: string) => {
      const m = new RegExp(`^${name}\\{origin="request"\\} (\\S+)$`, 'm').exec(r.text);
      if (!m) throw new Error(`${name}{origin="request"} is not on /metrics`);
      return Number(m[1]);
    };
    return { roundTrips: read('boxoffice_db_round_trips_total'), commits: read('boxoffice_db_commits_total') };
  }

  async function counted<T>(f: () => Promise<T>): Promise<{ result: T; roundTrips: number; commits: number }> {
    const before = await requestPath();
    const result = await f();
    const after = await requestPath();
    return { result, roundTrips: after.roundTrips - before.roundTrips, commits: after.commits - before.commits };
  }

  it('pm_card_visa: confirmed in 2 statements and 2 commits, its answer stored under the key by the second', async () => {
    const holdId = await holdSeats(t, showId, ['A1', 'A2'], alice.token);
    const key = newKey('trips');
    const paid = await counted(() => postBooking(t, { hold_id: holdId, payment_method: 'pm_card_visa' }, alice.token, key));
    expectStatus(paid.result, 201);
    expect(paid.result.body.status).toBe('confirmed');
    expect({ roundTrips: paid.roundTrips, commits: paid.commits }).toEqual({ roundTrips: 2, commits: 2 });

    const stored = await t.service.ctx.db.query<{ state: string; response_status: number; response_body: unknown; booking_id: string }>(
      'select state, response_status, response_body, booking_id from idempotency_keys where user_id = $1 and key = $2', [alice.userId, key]);
    expect(stored.rows).toEqual([{ state: 'done', response_status: 201, response_body: paid.result.body, booking_id: paid.result.body.booking_id }]);

    // A repeat replays those very bytes and charges nothing more.
    const again = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_visa' }, alice.token, key);
    expect(again.status).toBe(201);
    expect(again.text).toBe(paid.result.text);
  });

  it('a hold that cannot be paid any more (already paid, a new key): 409 HOLD_EXPIRED stored, no second booking, no claim left half-made', async () => {
    const holdId = await holdSeats(t, showId, ['A3'], alice.token);
    const first = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_visa' }, alice.token, newKey('trips-first'));
    expect(first.body.status).toBe('confirmed');
    const key = newKey('trips-second');
    const second = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_visa' }, alice.token, key);
    expectProblem(second, 409, 'HOLD_EXPIRED');
    const bookings = await t.service.ctx.db.query('select id from bookings where hold_id = $1', [holdId]);
    expect(bookings.rows).toHaveLength(1);
    const stored = await t.service.ctx.db.query<{ state: string; response_status: number; booking_id: string | null }>(
      'select state, response_status, booking_id from idempotency_keys where user_id = $1 and key = $2', [alice.userId, key]);
    expect(stored.rows).toEqual([{ state: 'done', response_status: 409, booking_id: null }]);
  });

  it('a declined card: failed, answered and stored the long way, the key noting its booking', async () => {
    const holdId = await holdSeats(t, showId, ['A4'], alice.token);
    const key = newKey('trips-declined');
    const declined = await counted(() => postBooking(t, { hold_id: holdId, payment_method: 'pm_card_chargeDeclined' }, alice.token, key));
    expectStatus(declined.result, 201);
    expect(declined.result.body.status).toBe('failed');
    const stored = await t.service.ctx.db.query<{ state: string; response_body: unknown; booking_id: string }>(
      'select state, response_body, booking_id from idempotency_keys where user_id = $1 and key = $2', [alice.userId, key]);
    expect(stored.rows).toEqual([{ state: 'done', response_body: declined.result.body, booking_id: declined.result.body.booking_id }]);
  });
});
