// Versions taken before commit can commit out of order (issue 9): transaction A
// takes seat version a, B takes b > a, B commits, then A. The largest seat version
// (the old map version) does not move when A commits, so an ETag built on it would
// answer 304 for a changed map. The published map version does move, and the
// stream delivers A's change after B's, with the next version.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { endPool } from '../support/database.js';
import { MapFollower, openStream } from './sseClient.js';
import { liveMap } from './helpers.js';

let t: TestService;
let pool: pg.Pool;
let buyers: Buyer[];

beforeAll(async () => {
  t = await startTestService({ config: { liveMap: liveMap() } });
  pool = new pg.Pool({ connectionString: t.service.ctx.config.databaseUrl!, max: 4 });
  buyers = await registerBuyers(t, 2);
});
afterAll(async () => {
  await endPool(pool);
  await t?.close();
});

const holdId = () => `hold_${randomBytes(12).toString('hex')}`;
const claim = (c: pg.PoolClient, showId: string, seat: string, buyer: Buyer) =>
  c.query<{ outcome: string }>('select outcome from claim_seats($1, $2, $3, $4::text[])', [showId, holdId(), buyer.userId, [seat]]);
const seatVersion = async (showId: string, seat: string) =>
  Number((await pool.query('select version from show_seats where show_id = $1 and seat_id = $2', [showId, seat])).rows[0].version);
const largestSeatVersion = async (showId: string) =>
  Number((await pool.query('select max(version) as v from show_seats where show_id = $1', [showId])).rows[0].v);

describe('an out-of-order commit', () => {
  it('is delivered after the change that committed first, with the next version, and changes the ETag', async () => {
    const { showId } = await createShow(t, { rows: 1, seatsPerRow: 4 });
    const c = await openStream(t, showId);
    const f = new MapFollower();
    await c.until('snapshot', () => c.events.length >= 1);
    f.apply(c);

    const [a, b] = [await pool.connect(), await pool.connect()];
    try {
      await a.query('begin');
      await b.query('begin');
      expect((await claim(a, showId, 'A1', buyers[0]!)).rows[0]!.outcome).toBe('held'); // takes the lower seat version
      expect((await claim(b, showId, 'A2', buyers[1]!)).rows[0]!.outcome).toBe('held');
      await b.query('commit');
      const afterB = await t.http.get(`/v1/shows/${showId}/seats`);
      await c.until("B's delta", () => { f.apply(c); return f.seats.get('A2') === 'held'; });
      expect(f.seats.get('A1')).toBe('available');
      expect(afterB.body.seats.find((s: { seat: string }) => s.seat === 'A1').status).toBe('available');
      const largestBefore = await largestSeatVersion(showId);

      await a.query('commit');
      // The race is real: A's seat version is below B's, so the largest seat version did not move.
      expect(await seatVersion(showId, 'A1')).toBeLessThan(await seatVersion(showId, 'A2'));
      expect(await largestSeatVersion(showId)).toBe(largestBefore);

      await c.until("A's delta", () => { f.apply(c); return f.seats.get('A1') === 'held'; });
      expect(f.problems).toEqual([]);
      const afterA = await t.http.get(`/v1/shows/${showId}/seats`, undefined, { 'if-none-match': afterB.headers.etag as string });
      expect(afterA.status).toBe(200);
      expect(afterA.headers.etag).not.toBe(afterB.headers.etag);
      expect(afterA.body.version).toBe(afterB.body.version + 1);
      expect(afterA.body.seats.find((s: { seat: string }) => s.seat === 'A1').status).toBe('held');
      expect(f.version).toBe(afterA.body.version);
    } finally {
      await a.query('rollback').catch(() => {});
      await b.query('rollback').catch(() => {});
      a.release();
      b.release();
      c.close();
    }
  });
});
