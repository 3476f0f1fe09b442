// A viewer that reconnects at 200 random moments (with Last-Event-ID) while
// buyers hold, release, let holds expire, book and cancel, ends with the same map
// as the database; in between, every delta follows the one before by exactly one
// version (no gap, no repeat), across reconnects too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { newKey } from '../bookings/helpers.js';
import { MapFollower, openStream } from './sseClient.js';
import { liveMap } from './helpers.js';

const RECONNECTS = 200;
let t: TestService;
let buyers: Buyer[];

beforeAll(async () => {
  t = await startTestService({ payments: {}, config: { liveMap: liveMap(), poolSize: 10 } });
  buyers = await registerBuyers(t, 6);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One buyer's random moves until `stop()`: hold, release, pay, cancel, or let a hold expire. Counts what it did. */
async function shop(showId: string, seats: string[], buyer: Buyer, stop: () => boolean, did: Record<string, number>): Promise<void> {
  const holds: string[] = [];
  const bookings: string[] = [];
  const count = (what: string) => { did[what] = (did[what] ?? 0) + 1; };
  while (!stop()) {
    const move = Math.random();
    if (move < 0.45 || holds.length === 0) {
      const first = Math.floor(Math.random() * (seats.length - 1));
      const r = await t.http.post(`/v1/shows/${showId}/holds`, { seats: seats.slice(first, first + 1 + Math.floor(Math.random() * 2)) }, buyer.token);
      if (r.status === 201) { holds.push(r.body.hold_id); count('hold'); } else count(`hold ${r.status}`);
    } else if (move < 0.6) {
      const r = await t.http.delete(`/v1/holds/${holds.shift()!}`, buyer.token);
      count(`release ${r.status}`);
    } else if (move < 0.72) {
      const r = await t.http.post('/v1/bookings', { hold_id: holds.shift()!, payment_method: 'pm_card_visa' }, buyer.token, { 'idempotency-key': newKey('live') });
      if (r.status === 201 && r.body.status === 'confirmed') { bookings.push(r.body.booking_id); count('book'); } else count(`book ${r.status}`);
    } else if (move < 0.9 && bookings.length > 0) {
      const r = await t.http.post(`/v1/bookings/${bookings.splice(Math.floor(Math.random() * bookings.length), 1)[0]!}/cancel`, {}, buyer.token);
      count(`cancel ${r.status}`);
    } else {
      holds.shift(); // left to expire (1 s), for the sweeper to free on the map
      count('abandon');
    }
    await sleep(5 + Math.random() * 20);
  }
}

describe('a viewer reconnecting at random moments', () => {
  it(`ends with the database's map after ${RECONNECTS} reconnects, every delta the next version`, async () => {
    const { showId, seats } = await createShow(t, { rows: 3, seatsPerRow: 20, hold_ttl_seconds: 1, per_user_limit: 60 });
    let stopped = false;
    const did: Record<string, number> = {};
    const shoppers = buyers.map((b) => shop(showId, seats, b, () => stopped, did));

    const f = new MapFollower();
    const firstEvents: string[] = [];
    for (let i = 0; i < RECONNECTS; i++) {
      const c = await openStream(t, showId, f.version === null ? {} : { lastEventId: String(f.version) });
      expect(c.status).toBe(200);
      f.reset();
      await sleep(Math.random() * 50);
      c.close(); // at a random moment: between events, or with an event half read (the client keeps only whole ones)
      f.apply(c);
      if (c.events[0]) firstEvents.push(c.events[0].event);
    }
    stopped = true;
    await Promise.all(shoppers);
    // Let the last holds (1 s) expire, so the map stops changing by itself while it is compared.
    await sleep(1200);

    // The last connection stays open until the stream and the map agree (the sweeper frees the last expired holds).
    const c = await openStream(t, showId, { lastEventId: String(f.version) });
    f.reset();
    let map: { version: number; seats: { seat: string; status: string }[] } | null = null;
    const agree = async () => {
      f.apply(c);
      map = (await t.http.get(`/v1/shows/${showId}/seats`)).body;
      return f.version === map!.version && map!.seats.every((s) => f.seats.get(s.seat) === s.status);
    };
    const end = Date.now() + 5000;
    while (!(await agree()) && Date.now() < end) await sleep(100);
    c.close();
    console.log(`moves ${JSON.stringify(did)}; ${f.deltas} deltas, ${f.snapshots} snapshots; resumes starting with ${firstEvents.filter((e) => e === 'delta').length} deltas, ${firstEvents.filter((e) => e === 'snapshot').length} snapshots`);

    expect(f.problems).toEqual([]);
    expect(f.version).toBe(map!.version);
    expect(new Map(map!.seats.map((s) => [s.seat, s.status]))).toEqual(f.seats);
    // The database itself, read apart from the service: paying shows as held, an expired hold as available.
    const rows = await t.service.ctx.db.query<{ seat_id: string; shown: string }>(
      `select seat_id, case when status = 'held' and hold_expires_at <= bo_now() then 'available' when status = 'paying' then 'held' else status end as shown
         from show_seats where show_id = $1`, [showId]);
    expect(new Map(rows.rows.map((r) => [r.seat_id, r.shown]))).toEqual(f.seats);
    // Every kind of move happened, and most resumes were served from the buffer.
    for (const move of ['hold', 'release 204', 'book', 'cancel 200', 'abandon']) expect(did[move] ?? 0, move).toBeGreaterThan(0);
    expect(f.snapshots).toBeLessThan(RECONNECTS / 4);
  });
});
