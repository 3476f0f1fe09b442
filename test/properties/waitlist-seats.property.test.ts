// The seats a waiting-list offer picks (waitlist_adjacent_free_seats, migrations/0021)
// against a plain model, over random seat states on real PostgreSQL: `count` free seats
// (available, or held past their expiry) with consecutive numbers in one row, the first
// row of the layout that has such a run, the lowest numbers of its first run; none
// when no row has one. Then the offer itself (offerSeats) takes exactly those seats.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { closeService, startService } from '../bookings/helpers.js';
import { offerSeats } from '../../src/db/seatTransitions.js';

const ROWS = ['A', 'B', 'C'];
const PER_ROW = 6;
const SEATS = ROWS.flatMap((r) => Array.from({ length: PER_ROW }, (_, k) => `${r}${k + 1}`));
type State = 'free' | 'held' | 'expired' | 'booked';

/** The model: the first run of `count` consecutive free numbers, rows in order. */
function expected(states: Map<string, State>, count: number): string[] {
  for (const row of ROWS) {
    let run: string[] = [];
    for (let n = 1; n <= PER_ROW; n++) {
      const seat = `${row}${n}`;
      const free = states.get(seat) === 'free' || states.get(seat) === 'expired';
      run = free ? [...run, seat] : [];
      if (run.length === count) return run;
    }
  }
  return [];
}

describe('waiting-list offers pick adjacent free seats', () => {
  let t: TestService;
  let showId: string;
  let waiter: Buyer;
  beforeAll(async () => {
    t = await startService({ sweeper: false });
    ({ showId } = await createShow(t, { rows: ROWS.length, seatsPerRow: PER_ROW, per_user_limit: 6 }));
    [waiter] = await registerBuyers(t, 1) as [Buyer];
  });
  afterAll(async () => { await closeService(t); });

  const db = () => t.service.ctx.db;
  const setStates = async (states: Map<string, State>) => {
    // Test set-up writes the seat rows directly (the module rule covers src/ and migrations/).
    await db().query(`delete from holds where show_id = $1`, [showId]);
    await db().query(`update waitlist_entries set status = 'left', hold_id = null where show_id = $1`, [showId]);
    const of = (s: State) => SEATS.filter((x) => states.get(x) === s);
    await db().query(
      `update show_seats set
         status = case when seat_id = any($2::text[]) then 'available' when seat_id = any($5::text[]) then 'booked' else 'held' end,
         hold_id = case when seat_id = any($2::text[]) then null else 'hold_model' end,
         holder_id = null, booking_id = null,
         hold_expires_at = case when seat_id = any($3::text[]) then bo_now() + interval '1 hour'
                                when seat_id = any($4::text[]) then bo_now() - interval '1 second' end
       where show_id = $1`,
      [showId, of('free'), of('held'), of('expired'), of('booked')],
    );
  };

  it('matches the model, and the offer takes exactly those seats', async () => {
    const state = fc.constantFrom<State>('free', 'free', 'held', 'expired', 'booked');
    await fc.assert(fc.asyncProperty(fc.array(state, { minLength: SEATS.length, maxLength: SEATS.length }), fc.integer({ min: 1, max: 4 }), async (list, count) => {
      const states = new Map(SEATS.map((s, i) => [s, list[i]!]));
      await setStates(states);
      const want = expected(states, count);
      const r = await db().query<{ seats: string[] }>('select waitlist_adjacent_free_seats($1, $2) as seats', [showId, count]);
      expect(r.rows[0]!.seats).toEqual(want);

      await db().query(
        `insert into waitlist_entries (show_id, user_id, position, count) values ($1, $2, 1, $3)
         on conflict (show_id, user_id) do update set status = 'waiting', count = $3, hold_id = null`,
        [showId, waiter.userId, count],
      );
      const offered = await offerSeats(db(), { showId, userId: waiter.userId, count, holdId: `hold_prop_${Math.random().toString(36).slice(2)}` });
      // The waiter holds nothing else (the seats' holder is reset above): never over the limit of 6.
      expect(offered).not.toBe('over_limit');
      const offer = offered === 'over_limit' ? null : offered;
      expect(offer?.seats ?? []).toEqual(want);
      const held = await db().query<{ seat_id: string }>(
        'select seat_id from show_seats where show_id = $1 and hold_id = $2 order by seat_id', [showId, offer?.hold_id ?? '']);
      expect(held.rows.map((x) => x.seat_id)).toEqual([...want].sort());
    }), { numRuns: 80 });
  }, 120_000);
});
