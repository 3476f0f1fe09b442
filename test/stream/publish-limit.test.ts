// More changes pending than one publish pass takes (the publisher's limit, as after
// a stall or a bulk release): every change is published once, in seat_version order,
// in consecutive batches with consecutive map versions, none is deleted unpublished,
// and a viewer ends with the seats as they are. Runs where the feed runs: the real
// PostgreSQL and the embedded PGlite (the same SQL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { createShow } from '../support/catalog.js';
import { PUBLISH_LIMIT } from '../../src/live/seatFeed.js';
import type { Delta, SeatChange } from '../../src/live/deltas.js';
import { MapFollower, openStream } from './sseClient.js';
import { liveMap } from './helpers.js';

const ROWS = 20;
const SEATS_PER_ROW = 200;
const SEATS = ROWS * SEATS_PER_ROW;

// Whole-show moves in one statement each: every seat held, released, held again.
const HOLD_ALL = `update show_seats set status = 'held', hold_id = $2, hold_expires_at = bo_now() + interval '1 hour',
                         version = nextval('seat_version_seq') where show_id = $1`;
const RELEASE_ALL = `update show_seats set status = 'available', hold_id = null, holder_id = null, hold_expires_at = null,
                            version = nextval('seat_version_seq') where show_id = $1`;

const bySeat = (a: SeatChange, b: SeatChange) => (a.seat < b.seat ? -1 : a.seat > b.seat ? 1 : 0);

/** What the publisher must send: the changes cut in seat_version order by the limit, each cut's latest status per seat. */
function expectedDeltas(pending: { seat_id: string; status: SeatChange['status'] }[], firstVersion: number, showId: string): Delta[] {
  const deltas: Delta[] = [];
  for (let from = 0; from < pending.length; from += PUBLISH_LIMIT) {
    const latest = new Map<string, SeatChange['status']>();
    for (const c of pending.slice(from, from + PUBLISH_LIMIT)) latest.set(c.seat_id, c.status);
    const changes = [...latest].map(([seat, status]) => ({ seat, status }));
    deltas.push({ show_id: showId, version: firstVersion + deltas.length, changes: changes.sort(bySeat) });
  }
  return deltas;
}

describe.each([
  ['PostgreSQL', false],
  ['PGlite', true],
])('publishing more changes than one pass takes, on %s', (_, pglite) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ pglite, sweeper: false, config: { liveMap: liveMap() } });
    // The test runs the feed's passes itself, so it knows what each one found pending.
    await t.service.ctx.seatFeed.stop();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('publishes every change once, in order, in consecutive versions, and a viewer sees each version', async () => {
    const { showId, seats } = await createShow(t, { rows: ROWS, seatsPerRow: SEATS_PER_ROW });
    const { db, seatFeed } = t.service.ctx;
    const heard: Delta[] = [];
    let resyncs = 0;
    const unlisten = seatFeed.listen({
      deltas: (id, ds) => { if (id === showId) heard.push(...ds); },
      resync: () => { resyncs++; },
    });
    const viewer = await openStream(t, showId);
    try {
      const f = new MapFollower();
      await viewer.until('the snapshot', () => { f.apply(viewer); return f.version !== null; });
      const before = f.version!;

      await db.query(HOLD_ALL, [showId, 'hold_bulk_first']);
      await db.query(RELEASE_ALL, [showId]);
      await db.query(HOLD_ALL, [showId, 'hold_bulk_second']);
      const pending = (await db.query<{ seat_id: string; status: SeatChange['status'] }>(
        'select seat_id, status from seat_changes where show_id = $1 order by seat_version', [showId])).rows;
      expect(pending).toHaveLength(3 * SEATS);
      expect(pending.length, 'more pending than two passes take').toBeGreaterThan(2 * PUBLISH_LIMIT);
      const want = expectedDeltas(pending, before + 1, showId);
      expect(want).toHaveLength(Math.ceil((3 * SEATS) / PUBLISH_LIMIT));

      // One pass more than the changes need: the extra one must find nothing left.
      for (let pass = 0; pass <= want.length; pass++) await seatFeed.runOnce();

      expect(resyncs).toBe(0);
      expect(heard.map((d) => d.version)).toEqual(want.map((d) => d.version));
      expect(heard.map((d) => ({ ...d, changes: [...d.changes].sort(bySeat) }))).toEqual(want);
      expect((await db.query('select 1 from seat_changes where show_id = $1', [showId])).rows, 'nothing left unpublished').toEqual([]);
      const batches = (await db.query<{ published_seq: number; map_version: number }>(
        'select published_seq, map_version from seat_deltas where show_id = $1 order by published_seq', [showId])).rows;
      expect(batches.map((b) => b.map_version)).toEqual(want.map((d) => d.version));
      expect(batches.map((b) => b.published_seq - batches[0]!.published_seq), 'consecutive batch numbers').toEqual(want.map((_, i) => i));

      await viewer.until('the last version', () => { f.apply(viewer); return f.version === want.at(-1)!.version; });
      expect(f.problems).toEqual([]);
      expect(f.deltas).toBe(want.length);
      expect(f.seats.size).toBe(SEATS);
      expect([...f.seats.values()].every((s) => s === 'held'), 'the viewer ends with every seat held').toBe(true);

      const map = await t.http.get(`/v1/shows/${showId}/seats`);
      expect(map.status).toBe(200);
      expect(map.body.version).toBe(want.at(-1)!.version);
      const statuses = new Map((map.body.seats as { seat: string; status: string }[]).map((s) => [s.seat, s.status]));
      expect(seats.filter((s) => statuses.get(s) !== 'held')).toEqual([]);
    } finally {
      unlisten();
      viewer.close();
    }
  }, 30_000);
});
