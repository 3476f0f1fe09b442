// The seat map stream in gzip (API.md "Seat map": map answers honour
// Accept-Encoding): asked with `Accept-Encoding: gzip`, a big show's stream is
// `Content-Encoding: gzip`, a fraction of its size on the wire, and decodes as it
// comes to the same events as the uncompressed stream: the snapshot, deltas,
// heartbeats, and a Last-Event-ID resume that starts with deltas.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { MapFollower, openStream, type SseConnection } from './sseClient.js';
import { liveMap } from './helpers.js';

let t: TestService;
let buyer: Buyer;
const open: SseConnection[] = [];
const GZIP = { 'accept-encoding': 'gzip, deflate, br' };

beforeAll(async () => {
  t = await startTestService({ config: { liveMap: liveMap() } });
  [buyer] = (await registerBuyers(t, 1)) as [Buyer];
});
afterAll(async () => {
  for (const c of open) c.close();
  await t?.close();
});

async function stream(showId: string, o: Parameters<typeof openStream>[2] = {}): Promise<SseConnection> {
  const c = await openStream(t, showId, o);
  expect(c.status).toBe(200);
  open.push(c);
  return c;
}

describe('the seat map stream in gzip', () => {
  it('sends a big show\'s snapshot in a fraction of its bytes, decoding to the same events as the plain stream', async () => {
    const { showId } = await createShow(t, { rows: 26, seatsPerRow: 400 });
    const plain = await stream(showId);
    const gzip = await stream(showId, { headers: GZIP });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers.vary).toMatch(/accept-encoding/i);
    await plain.until('the snapshot', () => plain.events.length >= 1);
    await gzip.until('the snapshot', () => gzip.events.length >= 1);
    const plainWire = plain.wireBytes;
    const gzipWire = gzip.wireBytes;
    console.log(`snapshot of ${26 * 400} seats: ${plainWire} bytes on the wire plain, ${gzipWire} in gzip`);
    expect(gzip.events[0]).toMatchObject({ event: 'snapshot', id: plain.events[0]!.id, data: plain.events[0]!.data });
    expect(plainWire).toBeGreaterThan(900_000);
    expect(gzipWire).toBeLessThan(plainWire / 8);

    // Deltas and heartbeats come decoded as they are sent (each event flushed).
    const r = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A1', 'B2'] }, buyer.token);
    expect(r.status, r.text).toBe(201);
    await gzip.until('the delta', () => gzip.events.length >= 2);
    await plain.until('the delta', () => plain.events.length >= 2);
    expect(gzip.events[1]).toMatchObject({ event: 'delta', id: plain.events[1]!.id, data: plain.events[1]!.data });
    const beats = gzip.comments.length;
    await gzip.until('a heartbeat', () => gzip.comments.length > beats, 2000);
    expect(gzip.comments.every((c) => c.text === 'heartbeat')).toBe(true);
    expect(gzip.retry).toBe(plain.retry);
    const f = new MapFollower();
    f.apply(gzip);
    expect(f.problems).toEqual([]);
    expect(f.seats.get('A1')).toBe('held');
  });

  it('resumes from Last-Event-ID with deltas only, in gzip too', async () => {
    const { showId } = await createShow(t, { rows: 2, seatsPerRow: 5 });
    const first = await stream(showId, { headers: GZIP });
    await first.until('the snapshot', () => first.events.length >= 1);
    const last = first.events[0]!.id!;
    first.close();
    const r = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A3'] }, buyer.token);
    expect(r.status, r.text).toBe(201);
    await t.service.ctx.seatFeed.catchUp();
    const resumed = await stream(showId, { headers: GZIP, lastEventId: last });
    expect(resumed.headers['content-encoding']).toBe('gzip');
    await resumed.until('the missed delta', () => resumed.events.length >= 1);
    expect(resumed.events[0]).toMatchObject({ event: 'delta', id: String(Number(last) + 1) });
    expect(JSON.parse(resumed.events[0]!.data).changes).toEqual([{ seat: 'A3', status: 'held' }]);
  });

  it('stays plain for a client that does not take gzip', async () => {
    const { showId } = await createShow(t, { rows: 1, seatsPerRow: 2 });
    for (const header of ['identity', 'br', 'gzip;q=0', 'gzip;q=0.5, identity']) {
      const c = await stream(showId, { headers: { 'accept-encoding': header } });
      expect(c.headers['content-encoding'], header).toBeUndefined();
      await c.until('the snapshot', () => c.events.length >= 1);
      c.close();
    }
  });
});
