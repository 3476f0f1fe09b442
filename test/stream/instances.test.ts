// Two service instances on one PostgreSQL: a change made through either appears on
// both instances' streams, with the same versions and the same deltas.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '../../src/service.js';
import { startSecondInstance, startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import type { HttpClient } from '../support/http.js';
import { MapFollower, openStream } from './sseClient.js';
import { liveMap } from './helpers.js';

let a: TestService;
let second: Service;
let b: HttpClient;
let buyer: Buyer;

beforeAll(async () => {
  a = await startTestService({ config: { liveMap: liveMap() } });
  ({ service: second, http: b } = await startSecondInstance(a)); // the same database
  [buyer] = (await registerBuyers(a, 1)) as [Buyer];
}, 60_000);
afterAll(async () => {
  await second?.close();
  await a?.close();
});

describe('two instances on one database', () => {
  it('deliver every change made on either to viewers of both, with identical versions and deltas', async () => {
    const { showId } = await createShow(a, { rows: 2, seatsPerRow: 10, per_user_limit: 20 });
    const onA = await openStream(a, showId);
    const onB = await openStream(a, showId, { baseUrl: b.baseUrl });
    const [fa, fb] = [new MapFollower(), new MapFollower()];
    await onA.until('snapshot', () => onA.events.length >= 1);
    await onB.until('snapshot', () => onB.events.length >= 1);

    const holds: string[] = [];
    for (let i = 1; i <= 10; i++) {
      const via = i % 2 ? b : a.http; // odd seats through the second instance
      const r = await via.post(`/v1/shows/${showId}/holds`, { seats: [`A${i}`] }, buyer.token);
      expect(r.status, r.text).toBe(201);
      holds.push(r.body.hold_id);
    }
    for (const id of holds.slice(0, 4)) expect((await b.delete(`/v1/holds/${id}`, buyer.token)).status).toBe(204);
    const final = (await a.http.get(`/v1/shows/${showId}/seats`)).body;
    const done = (f: MapFollower, c: typeof onA) => () => { f.apply(c); return f.version === final.version; };
    await onA.until('every change on A', done(fa, onA));
    await onB.until('every change on B', done(fb, onB));

    expect(fa.problems).toEqual([]);
    expect(fb.problems).toEqual([]);
    const wire = (c: typeof onA) => c.events.map((e) => ({ event: e.event, id: e.id, data: e.event === 'delta' ? JSON.parse(e.data) : null }));
    // A new show: both streams begin at the same snapshot, so every event after it is the same.
    expect(onA.events[0]!.id).toBe(onB.events[0]!.id);
    expect(wire(onA)).toEqual(wire(onB));
    const expected = new Map(final.seats.map((s: { seat: string; status: string }) => [s.seat, s.status]));
    expect(fa.seats).toEqual(expected);
    expect(fb.seats).toEqual(expected);
    expect([...expected.values()].filter((s) => s === 'held')).toHaveLength(6);
    onA.close();
    onB.close();
  });
});
