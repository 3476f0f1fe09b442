// 200 buyers, one seat, all at once: exactly one hold wins (DESIGN.md invariant 2,
// "the database decides races in one guarded statement").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { sameSeatViolations } from '../support/holdChecks.js';
import { postHold, seatRows, showTotals, shuffled, tally } from '../support/seatRows.js';

const BUYERS = 200;
const TRIALS = 60;

describe('200 buyers race for the same seat', () => {
  let t: TestService;
  let buyers: Buyer[];
  let show: { showId: string; seats: string[] };

  beforeAll(async () => {
    t = await startTestService();
    buyers = await registerBuyers(t, BUYERS);
    // per_user_limit at its maximum: one buyer winning many trials must never meet LIMIT_EXCEEDED.
    show = await createShow(t, { rows: 10, seatsPerRow: 20, per_user_limit: 1000 });
  });
  afterAll(async () => { await t?.close(); });

  it(`gives each seat to exactly one buyer, ${TRIALS} trials of ${BUYERS} parallel requests`, async () => {
    const started = Date.now();
    const winnerHoldIds: string[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const seat = show.seats[trial]!;
      // A new order per trial, so the first request sent is not always the same buyer's.
      const contenders = shuffled(buyers);
      const answers = await Promise.all(contenders.map((b) => postHold(t, show.showId, [seat], b.token)));
      const attempts = answers.map((a, i) => ({ buyer: contenders[i]!.userId, requested: [seat], status: a.status, body: a.body }));
      const [row] = await seatRows(t.service.ctx.db, show.showId, [seat]);

      const problems = sameSeatViolations(seat, attempts, row);
      expect(problems, `trial ${trial} (seat ${seat}): ${tally(answers)}`).toEqual([]);
      expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
      expect(answers.filter((a) => a.status === 409 && a.body.code === 'SEAT_UNAVAILABLE')).toHaveLength(BUYERS - 1);
      winnerHoldIds.push(answers.find((a) => a.status === 201)!.body.hold_id);
    }

    // Across all trials: one hold row per trial and one held seat per trial, nothing else.
    const totals = await showTotals(t.service.ctx.db, show.showId);
    expect(totals).toEqual({ holds: TRIALS, seatsWithHold: TRIALS });
    const held = await t.service.ctx.db.query<{ id: string }>('select id from holds where show_id = $1', [show.showId]);
    expect(new Set(held.rows.map((r) => r.id))).toEqual(new Set(winnerHoldIds));
    console.log(`same-seat: ${TRIALS} trials × ${BUYERS} requests in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
});
