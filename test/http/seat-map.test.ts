// The seat map: shape, ETag / If-None-Match, version growth on hold and release,
// expiry made visible by the sweeper within 2 s, and lazy expiry without it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { shiftClock } from '../../src/db/clock.js';
import { expectProblem, sleep } from './helpers.js';

interface MapSeat { seat: string; status: string; tier: string; price: number; row: string; number: number; section?: string }
interface SeatMap { show_id: string; version: number; seats: MapSeat[] }

let live: TestService; // sweeper running every 200 ms
let paused: TestService; // no sweeper at all
beforeAll(async () => {
  [live, paused] = await Promise.all([startTestService(), startTestService({ sweeper: false })]);
});
afterAll(async () => {
  await Promise.all([live?.close(), paused?.close()]);
});

async function map(t: TestService, showId: string, etag?: string) {
  const r = await t.http.get(`/v1/shows/${showId}/seats`, undefined, etag ? { 'if-none-match': etag } : undefined);
  return { status: r.status, etag: r.headers.etag as string | undefined, body: r.body as SeatMap, text: r.text, headers: r.headers };
}
const statusOf = (m: SeatMap) => new Map(m.seats.map((s) => [s.seat, s.status]));

describe('seat map with the sweeper running', () => {
  let showId: string;
  let seats: string[];
  let a: Buyer;

  beforeAll(async () => {
    ({ showId, seats } = await createShow(live, { rows: 3, seatsPerRow: 5 }));
    [a] = (await registerBuyers(live, 1)) as [Buyer];
  });

  it('has the contract shape and an ETag; If-None-Match answers 304 with an empty body', async () => {
    const m = await map(live, showId);
    expect(m.status).toBe(200);
    expect(String(m.headers['content-type'])).toMatch(/^application\/json/);
    expect(Object.keys(m.body).sort()).toEqual(['seats', 'show_id', 'version']);
    expect(m.body.show_id).toBe(showId);
    expect(Number.isInteger(m.body.version)).toBe(true);
    expect(m.body.seats.map((s) => s.seat).sort()).toEqual([...seats].sort());
    for (const s of m.body.seats) {
      expect(s).toMatchObject({ status: 'available', tier: 'standard', price: 1000 });
      expect(s.seat).toBe(`${s.row}${s.number}`);
      expect(Number.isInteger(s.number)).toBe(true);
      expect(s.section).toBeUndefined();
    }
    expect(m.etag, 'a strong validator').toMatch(/^"[^"]+"$/);

    const again = await map(live, showId, m.etag);
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    // an unrelated tag is not a match
    expect((await map(live, showId, '"something-else"')).status).toBe(200);
  });

  it('sends the cached bytes as they are: the declared response schema does not re-serialize them', async () => {
    const m = await map(live, showId);
    const built = await live.service.ctx.seatMaps.get(showId).answer;
    expect(built!.etag).toBe(m.etag);
    expect(Buffer.from(m.text)).toEqual(built!.body);
    expect(Number(m.headers['content-length'])).toBe(built!.body.length);
  });

  it('a hold changes ETag and version and shows the seats held; a release shows them available again', async () => {
    const m0 = await map(live, showId);
    const h = await live.http.post(`/v1/shows/${showId}/holds`, { seats: ['A1', 'B2'] }, a.token);
    expect(h.status).toBe(201);

    const m1 = await map(live, showId);
    expect(m1.etag).not.toBe(m0.etag);
    expect(m1.body.version).toBeGreaterThan(m0.body.version);
    const s1 = statusOf(m1.body);
    expect(s1.get('A1')).toBe('held');
    expect(s1.get('B2')).toBe('held');
    expect([...s1.values()].filter((x) => x === 'held')).toHaveLength(2);
    // the old tag no longer matches
    expect((await map(live, showId, m0.etag)).status).toBe(200);
    expect((await map(live, showId, m1.etag)).status).toBe(304);

    expect((await live.http.delete(`/v1/holds/${h.body.hold_id}`, a.token)).status).toBe(204);
    const m2 = await map(live, showId);
    expect(m2.body.version).toBeGreaterThan(m1.body.version);
    expect(m2.etag).not.toBe(m1.etag);
    expect([...statusOf(m2.body).values()].every((x) => x === 'available')).toBe(true);
  });

  it('unknown show: 404 problem', async () => {
    expectProblem(await live.http.get('/v1/shows/show_000000000000000000000000/seats'), 404, 'NOT_FOUND');
  });

  it('an expired hold shows available within 2 s after expires_at, with a grown version (sweeper)', async () => {
    const short = await createShow(live, { rows: 1, seatsPerRow: 4, hold_ttl_seconds: 1 });
    const h = await live.http.post(`/v1/shows/${short.showId}/holds`, { seats: ['A2', 'A3'] }, a.token);
    expect(h.status).toBe(201);
    const expiresAt = Date.parse(h.body.expires_at);
    const m1 = await map(live, short.showId);
    expect(statusOf(m1.body).get('A2')).toBe('held');

    let seen: { at: number; m: Awaited<ReturnType<typeof map>> } | null = null;
    while (Date.now() < expiresAt + 4000) {
      const m = await map(live, short.showId);
      const st = statusOf(m.body);
      if (st.get('A2') === 'available' && st.get('A3') === 'available' && m.body.version > m1.body.version) {
        seen = { at: Date.now(), m };
        break;
      }
      await sleep(50);
    }
    expect(seen, 'the map never showed the expiry with a grown version').not.toBeNull();
    console.log(`expiry visible with a grown version ${seen!.at - expiresAt} ms after expires_at`);
    expect(seen!.at - expiresAt).toBeLessThanOrEqual(2000);
    expect(seen!.m.etag).not.toBe(m1.etag);
    expect((await live.http.get(`/v1/holds/${h.body.hold_id}`, a.token)).body.status).toBe('expired');
  });
});

describe('seat map with the sweeper paused: expiry is lazy', () => {
  it('after the clock passes expires_at the map shows the seats available and they can be held again', async () => {
    const { showId } = await createShow(paused, { rows: 2, seatsPerRow: 5, hold_ttl_seconds: 60 });
    const [a, b] = (await registerBuyers(paused, 2)) as [Buyer, Buyer];
    const h = await paused.http.post(`/v1/shows/${showId}/holds`, { seats: ['A1', 'A2'] }, a.token);
    expect(h.status).toBe(201);
    const m1 = await map(paused, showId);
    expect(statusOf(m1.body).get('A1')).toBe('held');
    expectProblem(await paused.http.post(`/v1/shows/${showId}/holds`, { seats: ['A2'] }, b.token), 409, 'SEAT_UNAVAILABLE');

    await shiftClock(paused.service.ctx.db, 61);
    // nothing swept: the rows still say held, with an expiry in the past
    const rows = await paused.service.ctx.db.query<{ status: string; past: boolean }>(
      "select status, hold_expires_at <= bo_now() as past from show_seats where show_id = $1 and seat_id in ('A1', 'A2')", [showId]);
    expect(rows.rows).toEqual([{ status: 'held', past: true }, { status: 'held', past: true }]);

    const m2 = await map(paused, showId);
    expect(statusOf(m2.body).get('A1')).toBe('available');
    expect(statusOf(m2.body).get('A2')).toBe('available');
    // the content changed, so the old ETag must not produce a 304
    expect((await map(paused, showId, m1.etag)).status).toBe(200);
    expect((await paused.http.get(`/v1/holds/${h.body.hold_id}`, a.token)).body.status).toBe('expired');

    const again = await paused.http.post(`/v1/shows/${showId}/holds`, { seats: ['A1', 'A2'] }, b.token);
    expect(again.status, again.text).toBe(201);
    const m3 = await map(paused, showId);
    expect(statusOf(m3.body).get('A1')).toBe('held');
    expect(m3.body.version).toBeGreaterThan(m1.body.version);
    // the first buyer's expired hold cannot be released onto the new holder's seats
    expect((await paused.http.delete(`/v1/holds/${h.body.hold_id}`, a.token)).status).toBe(204);
    expect(statusOf((await map(paused, showId)).body).get('A1')).toBe('held');
  });
});
