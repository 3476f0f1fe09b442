// The in-memory show rules of the purchase path's gate: a change made behind an
// instance's back reaches it within twice the refresh interval, and sale windows
// are judged on the database's clock, also when a test shifts it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShowRules } from '../../src/app/showRules.js';
import type { Queryable } from '../../src/db/client.js';
import { shiftClock } from '../../src/db/clock.js';
import { startTestService, type TestService } from '../support/service.js';
import { createShow } from '../support/catalog.js';

let t: TestService;
beforeAll(async () => { t = await startTestService({ sweeper: false }); });
afterAll(async () => { await t?.close(); });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('show rules in memory', () => {
  it('see a change made elsewhere within twice the refresh interval', async () => {
    const { showId } = await createShow(t);
    const rules = new ShowRules(t.service.ctx.db, 200);
    expect((await rules.get(showId))!.waitingRoom).toBe(false);
    expect(await rules.get('show_000000000000000000000000')).toBeNull();
    // Another instance turns the waiting room on (straight in the database: nobody tells this one).
    await t.service.ctx.db.query('update shows set waiting_room = true where id = $1', [showId]);
    const changedAt = Date.now();
    let seenAfter: number | null = null;
    while (Date.now() - changedAt < 2000) {
      if ((await rules.get(showId))!.waitingRoom) {
        seenAfter = Date.now() - changedAt;
        break;
      }
      await sleep(10);
    }
    expect(seenAfter).not.toBeNull();
    expect(seenAfter!).toBeLessThanOrEqual(2 * 200 + 50);
  });

  it('share one read among every request that needs the same show at once', async () => {
    const { showId } = await createShow(t);
    const other = await createShow(t);
    let queries = 0;
    const counted: Queryable = {
      query: (text, params) => { queries++; return t.service.ctx.db.query(text, params); },
      script: (sql) => t.service.ctx.db.script(sql),
    };
    const rules = new ShowRules(counted, 60_000);
    // A crowd's first requests, all before the first answer: one query per show, not one per request.
    const got = await Promise.all([...Array.from({ length: 200 }, () => rules.get(showId)), rules.get(other.showId), rules.get(other.showId)]);
    expect(queries).toBe(2);
    expect(got.every((r) => r !== null && r.waitingRoom === false)).toBe(true);
    // This instance changes the show and forgets it: the next read is a new one, not the one before the change.
    await t.service.ctx.db.query('update shows set waiting_room = true where id = $1', [showId]);
    rules.forget(showId);
    expect((await rules.get(showId))!.waitingRoom).toBe(true);
    expect(queries).toBe(3);
  });

  it('judge time on the database clock', async () => {
    const { showId } = await createShow(t);
    const rules = new ShowRules(t.service.ctx.db, 100);
    await rules.get(showId);
    expect(Math.abs(rules.dbNow() - Date.now())).toBeLessThan(1000);
    await shiftClock(t.service.ctx.db, 3600);
    try {
      await sleep(250); // past twice the refresh: the next read measures the clock again
      await rules.get(showId);
      expect(Math.abs(rules.dbNow() - (Date.now() + 3_600_000))).toBeLessThan(1000);
    } finally {
      await shiftClock(t.service.ctx.db, -3600);
    }
  });
});
