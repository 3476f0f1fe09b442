// A hold is honoured for its whole window and free at once after it, with no timer
// (DESIGN.md invariant 3, lazy expiry); the sweeper only makes the map catch up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbNow, shiftClock } from '../../src/db/clock.js';
import type { Queryable } from '../../src/db/client.js';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { postHold, seatRows, sleep } from '../support/seatRows.js';

/** Moves the DB clock so that bo_now() is `offsetMs` away from `target` (negative: before it). */
async function setClockNear(db: Queryable, target: Date, offsetMs: number): Promise<void> {
  const now = await dbNow(db);
  await shiftClock(db, (target.getTime() + offsetMs - now.getTime()) / 1000);
}

async function seatMap(t: TestService, showId: string, etag?: string) {
  const r = await t.http.get(`/v1/shows/${showId}/seats`, undefined, etag ? { 'if-none-match': etag } : undefined);
  const statuses = new Map<string, string>((r.body?.seats ?? []).map((s: { seat: string; status: string }) => [s.seat, s.status]));
  return { status: r.status, etag: r.headers.etag as string, version: r.body?.version as number, statuses };
}

describe('expiry without any timer (sweeper paused)', () => {
  let t: TestService;
  let a: Buyer;
  let b: Buyer;
  let db: Queryable;

  beforeAll(async () => {
    t = await startTestService({ sweeper: false });
    db = t.service.ctx.db;
    [a, b] = (await registerBuyers(t, 2)) as [Buyer, Buyer];
  });
  afterAll(async () => { await t?.close(); });

  it('honours a hold until just before expires_at and frees it right after (shifted DB clock)', async () => {
    const { showId } = await createShow(t, { hold_ttl_seconds: 600 });
    const held = await postHold(t, showId, ['A1', 'A2'], a.token);
    expect(held.status).toBe(201);
    const holdId: string = held.body.hold_id;
    const expiresAt = new Date(held.body.expires_at);
    const row = await db.query<{ expires_at: Date }>('select expires_at from holds where id = $1', [holdId]);
    expect(row.rows[0]!.expires_at.getTime()).toBe(expiresAt.getTime());

    // Half way through the window, and then one second before its end: refused, nothing taken.
    for (const before of [300_000, 1_000]) {
      await setClockNear(db, expiresAt, -before);
      const refused = await postHold(t, showId, ['A2', 'A3'], b.token);
      expect((await dbNow(db)).getTime(), 'the refusal must have been judged before expires_at').toBeLessThan(expiresAt.getTime());
      expect(refused.status, `${before} ms before expiry`).toBe(409);
      expect(refused.body).toMatchObject({ code: 'SEAT_UNAVAILABLE', taken: ['A2'] });
      const rows = await seatRows(db, showId, ['A1', 'A2', 'A3']);
      expect(rows.map((r) => [r.seat_id, r.status, r.hold_id])).toEqual([['A1', 'held', holdId], ['A2', 'held', holdId], ['A3', 'available', null]]);
      expect((await t.http.get(`/v1/holds/${holdId}`, a.token)).body.status).toBe('active');
    }

    // Half a second past expires_at: B gets the seats at once, although no sweeper ran.
    await setClockNear(db, expiresAt, 500);
    const rawBefore = await seatRows(db, showId, ['A1', 'A2']);
    expect(rawBefore.map((r) => r.hold_id), 'nothing freed the rows: they still carry the expired hold').toEqual([holdId, holdId]);
    const taken = await postHold(t, showId, ['A1', 'A2'], b.token);
    expect(taken.status).toBe(201);
    const rows = await seatRows(db, showId, ['A1', 'A2']);
    expect(rows.map((r) => [r.status, r.hold_id, r.holder_id])).toEqual([
      ['held', taken.body.hold_id, b.userId],
      ['held', taken.body.hold_id, b.userId],
    ]);
    const expired = await t.http.get(`/v1/holds/${holdId}`, a.token);
    expect(expired.status).toBe(200);
    expect(expired.body).toMatchObject({ hold_id: holdId, status: 'expired', seats: ['A1', 'A2'] });
    // And the new hold is honoured in turn: A cannot take them back.
    const back = await postHold(t, showId, ['A1'], a.token);
    expect(back.status).toBe(409);
    expect(back.body).toMatchObject({ code: 'SEAT_UNAVAILABLE', taken: ['A1'] });
  });

  it('frees the seats with the real clock too (ttl 1 s, no clock shift)', async () => {
    const { showId } = await createShow(t, { hold_ttl_seconds: 1 });
    const held = await postHold(t, showId, ['B1', 'B2'], a.token);
    expect(held.status).toBe(201);
    const expiresAt = new Date(held.body.expires_at);
    const refused = await postHold(t, showId, ['B2'], b.token);
    expect((await dbNow(db)).getTime(), 'the refusal must have been judged before expires_at').toBeLessThan(expiresAt.getTime());
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'SEAT_UNAVAILABLE', taken: ['B2'] });

    await sleep(1_100);
    expect((await dbNow(db)).getTime()).toBeGreaterThan(expiresAt.getTime());
    const taken = await postHold(t, showId, ['B1', 'B2'], b.token);
    expect(taken.status).toBe(201);
    expect((await t.http.get(`/v1/holds/${held.body.hold_id}`, a.token)).body.status).toBe('expired');
  });

  it('an expired hold no longer counts towards per_user_limit', async () => {
    const { showId } = await createShow(t, { hold_ttl_seconds: 600, per_user_limit: 2 });
    const held = await postHold(t, showId, ['C1', 'C2'], a.token);
    expect(held.status).toBe(201);
    const over = await postHold(t, showId, ['C3'], a.token);
    expect(over.status).toBe(409);
    expect(over.body.code).toBe('LIMIT_EXCEEDED');
    await setClockNear(db, new Date(held.body.expires_at), 500);
    expect((await postHold(t, showId, ['C3', 'C4'], a.token)).status).toBe(201);
  });

  it('releasing an expired hold never frees seats another buyer has taken since', async () => {
    const { showId } = await createShow(t, { hold_ttl_seconds: 600 });
    const first = await postHold(t, showId, ['E1', 'E2'], a.token);
    expect(first.status).toBe(201);
    await setClockNear(db, new Date(first.body.expires_at), 500);
    const second = await postHold(t, showId, ['E2', 'E3'], b.token);
    expect(second.status).toBe(201);

    // The late release is harmless: the hold stays expired and B keeps E2 and E3.
    expect((await t.http.delete(`/v1/holds/${first.body.hold_id}`, a.token)).status).toBe(204);
    expect((await t.http.get(`/v1/holds/${first.body.hold_id}`, a.token)).body.status).toBe('expired');
    const rows = await seatRows(db, showId, ['E2', 'E3']);
    expect(rows.map((r) => [r.seat_id, r.status, r.hold_id])).toEqual([
      ['E2', 'held', second.body.hold_id],
      ['E3', 'held', second.body.hold_id],
    ]);
    const taken = await postHold(t, showId, ['E2'], a.token);
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ code: 'SEAT_UNAVAILABLE', taken: ['E2'] });
    // E1, which only the expired hold had, is free for the next claim.
    expect((await seatMap(t, showId)).statuses.get('E1')).toBe('available');
    expect((await postHold(t, showId, ['E1'], b.token)).status).toBe(201);
  });

  it('the seat map shows an expired hold as available at once, with a new ETag', async () => {
    const { showId } = await createShow(t, { hold_ttl_seconds: 600 });
    const held = await postHold(t, showId, ['D1'], a.token);
    expect(held.status).toBe(201);
    const before = await seatMap(t, showId);
    expect(before.statuses.get('D1')).toBe('held');
    expect((await seatMap(t, showId, before.etag)).status).toBe(304);

    await setClockNear(db, new Date(held.body.expires_at), 500);
    const after = await seatMap(t, showId, before.etag);
    expect(after.status, 'If-None-Match with the old ETag must not answer 304 after an expiry').toBe(200);
    expect(after.statuses.get('D1')).toBe('available');
    expect(after.etag).not.toBe(before.etag);
    expect((await seatMap(t, showId, after.etag)).status).toBe(304);
    // The row itself was not touched: this is the lazy path, not the sweeper.
    expect((await seatRows(db, showId, ['D1']))[0]).toMatchObject({ status: 'held', hold_id: held.body.hold_id });
  });
});

describe('the sweeper makes the seat map catch up within 2 s of expires_at', () => {
  let t: TestService;
  let a: Buyer;
  let db: Queryable;

  beforeAll(async () => {
    t = await startTestService(); // sweeper running, every 200 ms
    db = t.service.ctx.db;
    [a] = (await registerBuyers(t, 1)) as [Buyer];
  });
  afterAll(async () => { await t?.close(); });

  /**
   * Polls the map until the seats show available *and* its version has grown; fails
   * when the DB clock passes expires_at + 2 s first.
   */
  async function waitForSweptMap(showId: string, seats: string[], expiresAt: Date, before: { version: number; etag: string }) {
    for (;;) {
      const map = await seatMap(t, showId);
      expect(map.status).toBe(200);
      const now = await dbNow(db);
      if (map.version > before.version && seats.every((s) => map.statuses.get(s) === 'available')) {
        return { map, lateMs: now.getTime() - expiresAt.getTime() };
      }
      if (now.getTime() > expiresAt.getTime() + 2_000) {
        throw new Error(`2 s after expires_at the map still has version ${map.version} (was ${before.version}), seats ${seats.map((s) => map.statuses.get(s))}`);
      }
      await sleep(50);
    }
  }

  it('shifted clock: seats available, version grown, ETag changed, rows freed and the hold marked expired', async () => {
    const { showId } = await createShow(t, { hold_ttl_seconds: 600 });
    const held = await postHold(t, showId, ['A1', 'A2'], a.token);
    expect(held.status).toBe(201);
    const expiresAt = new Date(held.body.expires_at);
    const before = await seatMap(t, showId);
    expect([before.statuses.get('A1'), before.statuses.get('A2')]).toEqual(['held', 'held']);

    await setClockNear(db, expiresAt, 1);
    const { map, lateMs } = await waitForSweptMap(showId, ['A1', 'A2'], expiresAt, before);
    expect(lateMs).toBeLessThanOrEqual(2_000);
    expect(map.etag).not.toBe(before.etag);
    expect((await seatMap(t, showId, before.etag)).status).toBe(200);
    const rows = await seatRows(db, showId, ['A1', 'A2']);
    expect(rows.map((r) => [r.status, r.hold_id])).toEqual([['available', null], ['available', null]]);
    const hold = await db.query<{ status: string }>('select status from holds where id = $1', [held.body.hold_id]);
    expect(hold.rows[0]!.status).toBe('expired');
  });

  it('real clock (ttl 1 s): the map catches up within 2 s of expires_at', async () => {
    const { showId } = await createShow(t, { hold_ttl_seconds: 1 });
    const held = await postHold(t, showId, ['B1'], a.token);
    expect(held.status).toBe(201);
    const before = await seatMap(t, showId);
    expect(before.statuses.get('B1')).toBe('held');
    const { map } = await waitForSweptMap(showId, ['B1'], new Date(held.body.expires_at), before);
    expect(map.etag).not.toBe(before.etag);
  });
});
