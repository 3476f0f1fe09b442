// The change log is UNLOGGED (migrations/0027): a crash empties it, so changes
// committed but not yet published are lost to the feed. The first publish after a
// server start skips one batch number and moves every show's map version on, and
// every reader resynchronizes its viewers (a fresh snapshot), even when nothing
// else is published. Runs on a PostgreSQL cluster of the test's own, killed -9.
import { randomBytes } from 'node:crypto';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres, type Database } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { claimSeats } from '../../src/db/seatTransitions.js';
import { SeatFeed } from '../../src/live/seatFeed.js';
import { LiveMetrics } from '../../src/live/liveMetrics.js';
import type { Delta } from '../../src/live/deltas.js';
import { startCluster, type PgCluster } from '../support/pgCluster.js';
import { liveMap } from './helpers.js';

const id = (p: string) => `${p}_${randomBytes(6).toString('hex')}`;

describe('a crash of the database server', () => {
  let cluster: PgCluster | null = null;
  let db: Database;
  let feed: SeatFeed;
  const warnings: string[] = [];
  const showId = id('show');

  beforeAll(async () => {
    cluster = await startCluster();
    db = connectPostgres(cluster.url(), 4);
    await migrate(db);
    await db.query(`
      insert into venues (id, name, city) values ('ven_r', 'Venue', 'City');
      insert into halls (id, venue_id, name, seat_count) values ('hal_r', 'ven_r', 'Hall', 10);
      insert into hall_seats (hall_id, seat_id, position, row_label, number, tier)
        select 'hal_r', 'A' || n, n, 'A', n, 'standard' from generate_series(1, 10) n;
      insert into events (id, title) values ('evt_r', 'Event');
      insert into users (id, email, password_hash) values ('usr_r', 'r@test', 'x');`);
    await db.query(
      `insert into shows (id, event_id, hall_id, starts_at, sale_opens_at, currency, price_tiers, hold_ttl_seconds, per_user_limit)
       values ($1, 'evt_r', 'hal_r', now() + interval '7 days', now() - interval '1 day', 'EUR', '{"standard": 1000}', 600, 10)`, [showId]);
    await db.query("insert into show_seats (show_id, seat_id, tier, status) select $1, seat_id, tier, 'available' from hall_seats where hall_id = 'hal_r'", [showId]);
    feed = new SeatFeed(db, liveMap(), new LiveMetrics(new Registry(), () => 0), { warn: (_, m) => { warnings.push(m); } });
    // The test runs the passes itself: start reads the cursor, stop ends the loop.
    await feed.start();
    await feed.stop();
  }, 120_000);

  afterAll(async () => {
    await feed?.stop();
    await db?.close();
    await cluster?.destroy();
  }, 60_000);

  const mapVersion = async () => (await db.query<{ v: number }>('select map_version as v from shows where id = $1', [showId])).rows[0]!.v;
  const batch = async () => (await db.query<{ n: number }>('select published_seq as n from seat_feed')).rows[0]!.n;
  const hold = async (seats: string[]) => {
    const r = await claimSeats(db, { showId, holdId: id('hold'), userId: 'usr_r', seats });
    expect(r.outcome).toBe('held');
  };

  it('loses the unpublished changes, and every reader resynchronizes once', async () => {
    const heard: Delta[] = [];
    let resyncs = 0;
    feed.listen({ deltas: (_, ds) => { heard.push(...ds); }, resync: () => { resyncs++; } });

    await hold(['A1', 'A2']);
    await feed.runOnce();
    expect(heard.map((d) => d.changes.length)).toEqual([2]);
    expect(resyncs).toBe(0);

    await hold(['A3']);
    expect((await db.query('select seat_id from seat_changes where show_id = $1', [showId])).rows).toEqual([{ seat_id: 'A3' }]);
    const versionBefore = await mapVersion();
    const batchBefore = await batch();

    await cluster!.kill();
    await cluster!.start();
    // The pool's connections died with the server; the next queries open new ones.
    for (let i = 0; i < 20; i++) {
      try { await db.query('select 1'); break; } catch { await new Promise((r) => setTimeout(r, 100)); }
    }
    // The premise: crash recovery emptied the unlogged change log, A3's hold itself survived.
    expect((await db.query('select 1 from seat_changes')).rows).toEqual([]);
    expect((await db.query<{ status: string }>("select status from show_seats where show_id = $1 and seat_id = 'A3'", [showId])).rows).toEqual([{ status: 'held' }]);

    // Nothing is pending, yet the next pass tells every reader to resynchronize.
    await feed.runOnce();
    expect(resyncs).toBe(1);
    expect(await batch()).toBe(batchBefore + 1);
    expect(await mapVersion(), 'a map read after the crash must not carry the version of one before').toBe(versionBefore + 1);
    expect((await db.query('select 1 from seat_deltas where published_seq > $1', [batchBefore])).rows).toEqual([]);

    // Once: later passes publish as before, consecutively.
    await feed.runOnce();
    await hold(['A4']);
    await feed.runOnce();
    expect(resyncs).toBe(1);
    expect(heard.at(-1)).toEqual({ show_id: showId, version: versionBefore + 2, changes: [{ seat: 'A4', status: 'held' }] });
    expect(await batch()).toBe(batchBefore + 2);
  }, 120_000);
});
