// A map read never publishes (issue #25: publishing is serialized per shard, and a
// GET took the publisher's lock). It still counts a buyer's own hold in the version
// and ETag they read next: having seen changes of the show not yet published, it
// waits for the feed's publisher, then reads again. With no publisher at work it
// answers after its bound with what it read (the map ahead of its version).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';

const PUBLISH_LOCK = "hashtextextended('boxoffice.publish_seat_changes', 0)";

describe.each([
  ['PostgreSQL', false],
  ['PGlite', true],
])('the seat map read on %s', (_, pglite) => {
  let t: TestService;
  let showId: string;
  let buyer: Buyer;
  beforeAll(async () => {
    t = await startTestService({ pglite, sweeper: false });
    ({ showId } = await createShow(t, { rows: 2, seatsPerRow: 5 }));
    [buyer] = (await registerBuyers(t, 1)) as [Buyer];
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  const map = async () => {
    const r = await t.http.get(`/v1/shows/${showId}/seats`);
    expect(r.status).toBe(200);
    return { etag: r.headers.etag as string, version: r.body.version as number, status: new Map((r.body.seats as { seat: string; status: string }[]).map((s) => [s.seat, s.status])) };
  };
  const hold = async (seats: string[]) => expect((await t.http.post(`/v1/shows/${showId}/holds`, { seats }, buyer.token)).status).toBe(201);
  const feedState = async () => (await t.service.ctx.db.query<{ batch: number; version: number; pending: number }>(
    `select (select published_seq from seat_feed) as batch, (select map_version from shows where id = $1) as version,
            (select count(*)::int from seat_changes where show_id = $1) as pending`, [showId])).rows[0]!;

  it('counts the buyer\'s own hold in the version it reads next, published by the feed', async () => {
    const before = await map();
    await hold(['A1', 'A2']);
    const after = await map();
    expect(after.status.get('A1')).toBe('held');
    expect(after.version).toBeGreaterThan(before.version);
    expect(after.etag).not.toBe(before.etag);
    // The delta that carries the hold is one the version read counts.
    const carried = await t.service.ctx.db.query<{ v: number }>(
      `select map_version as v from seat_deltas where show_id = $1 and changes @> '[{"seat": "A1", "status": "held"}]'`, [showId]);
    expect(carried.rows.map((r) => r.v).every((v) => v <= after.version)).toBe(true);
    expect(carried.rows.length).toBeGreaterThan(0);
  });

  it('publishes nothing itself: with no publisher it answers its own hold, ahead of its version', async () => {
    await t.service.ctx.seatFeed.stop();
    await hold(['B1']);
    const state = await feedState();
    expect(state.pending).toBe(1);
    const m = await map();
    expect(m.status.get('B1'), 'the read sees the committed hold').toBe('held');
    expect(m.version, 'unpublished: not counted').toBe(state.version);
    expect(await feedState(), 'the read published nothing').toEqual(state);
    // Another change, still unpublished: the same version, but not the same ETag.
    await hold(['B3']);
    const again = await map();
    expect(again.status.get('B3')).toBe('held');
    expect(again.version).toBe(m.version);
    expect(again.etag).not.toBe(m.etag);
    const revalidated = await t.http.get(`/v1/shows/${showId}/seats`, undefined, { 'if-none-match': m.etag });
    expect(revalidated.status, 'the old ETag must not answer 304 for a changed map').toBe(200);
  });

  it.skipIf(pglite)('answers while a publisher holds the lock (PostgreSQL: a read took that lock before)', async () => {
    await hold(['B2']);
    const state = await feedState();
    await t.service.ctx.db.transaction(async (tx) => {
      await tx.query(`select pg_advisory_xact_lock(${PUBLISH_LOCK})`);
      const m = await map();
      expect(m.status.get('B2')).toBe('held');
      expect(m.version).toBe(state.version);
    });
    expect(await feedState()).toEqual(state);
    // The publisher, once running again, counts it.
    await t.service.ctx.seatFeed.start();
    const deadline = Date.now() + 5000;
    while ((await feedState()).pending > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect((await map()).version).toBeGreaterThan(state.version);
  });
});
