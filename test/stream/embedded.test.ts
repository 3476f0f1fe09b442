// The embedded default (PGlite, in process) runs the same feed: the trigger, the
// publisher and the reader are the same SQL, so its stream works the same way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers } from '../support/catalog.js';
import { MapFollower, openStream } from './sseClient.js';
import { liveMap } from './helpers.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ pglite: true, config: { liveMap: liveMap() } });
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('the seat map stream on PGlite', () => {
  it('sends the snapshot, then a hold and its release as consecutive deltas', async () => {
    const { showId } = await createShow(t, { rows: 1, seatsPerRow: 4 });
    const [buyer] = await registerBuyers(t, 1);
    const c = await openStream(t, showId);
    const f = new MapFollower();
    await c.until('snapshot', () => { f.apply(c); return f.version !== null; });
    const h = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A1', 'A2'] }, buyer!.token);
    expect(h.status).toBe(201);
    await c.until('the hold', () => { f.apply(c); return f.seats.get('A2') === 'held'; });
    expect((await t.http.delete(`/v1/holds/${h.body.hold_id}`, buyer!.token)).status).toBe(204);
    await c.until('the release', () => { f.apply(c); return f.seats.get('A2') === 'available'; });
    expect(f.problems).toEqual([]);
    expect(f.deltas).toBe(2);
    c.close();
  });
});
