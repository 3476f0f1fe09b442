// The seat map stream's contract (API.md "Seat map"): retry and heartbeat lines,
// the snapshot first, deltas after it, Last-Event-ID resumes (from the buffer, or
// a fresh snapshot when too old or not a version), the section filter, the answers
// before the stream (404, 400) and the viewer bound (503 OVERLOADED with Retry-After).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { expectProblem } from '../support/problems.js';
import { MapFollower, openStream, type SseConnection } from './sseClient.js';
import { answerOf, liveMap, sectionedShow } from './helpers.js';

const BUFFER = 5;
let t: TestService;
let buyer: Buyer;
const open: SseConnection[] = [];

beforeAll(async () => {
  t = await startTestService({ config: { liveMap: liveMap({ bufferDeltas: BUFFER, maxViewers: 4 }) } });
  [buyer] = (await registerBuyers(t, 1)) as [Buyer];
});
afterAll(async () => {
  for (const c of open) c.close();
  await t?.close();
});

async function stream(showId: string, o: Parameters<typeof openStream>[2] = {}): Promise<SseConnection> {
  const c = await openStream(t, showId, o);
  if (c.status === 200) open.push(c);
  return c;
}

async function hold(showId: string, seats: string[]): Promise<string> {
  const r = await t.http.post(`/v1/shows/${showId}/holds`, { seats }, buyer.token);
  expect(r.status, r.text).toBe(201);
  return r.body.hold_id as string;
}
async function release(holdId: string): Promise<void> {
  expect((await t.http.delete(`/v1/holds/${holdId}`, buyer.token)).status).toBe(204);
}

/** Closes every stream and waits until the service counts no viewer. */
async function closeAll(): Promise<void> {
  for (const c of open.splice(0)) c.close();
  const end = Date.now() + 3000;
  while (t.service.ctx.seatStreams.viewerCount > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  expect(t.service.ctx.seatStreams.viewerCount).toBe(0);
}

describe('the seat map stream', () => {
  it('starts with retry and the snapshot (id = version, the map as GET answers it), then sends heartbeats', async () => {
    const { showId, seats } = await createShow(t, { rows: 2, seatsPerRow: 5 });
    const c = await stream(showId);
    expect(c.status).toBe(200);
    expect(String(c.headers['content-type'])).toMatch(/^text\/event-stream/);
    await c.until('the snapshot', () => c.events.length >= 1);
    expect(c.retry).toBe(500);
    const first = c.events[0]!;
    expect(first.event).toBe('snapshot');
    const snap = JSON.parse(first.data);
    const map = await t.http.get(`/v1/shows/${showId}/seats`);
    expect(snap).toEqual(map.body);
    expect(first.id).toBe(String(map.body.version));
    expect(snap.seats.map((s: { seat: string }) => s.seat).sort()).toEqual([...seats].sort());

    const since = Date.now();
    await c.until('three heartbeats', () => c.comments.filter((m) => m.at >= since).length >= 3, 2000);
    const beats = c.comments.filter((m) => m.at >= since).map((m) => m.at);
    expect(c.comments.every((m) => m.text === 'heartbeat')).toBe(true);
    // Every 200 ms here (STREAM_HEARTBEAT_MS); timers may run a little late on a busy machine.
    for (let i = 1; i < beats.length; i++) expect(beats[i]! - beats[i - 1]!).toBeLessThan(600);
    await closeAll();
  });

  it('sends each change as a delta with the next version; the map and its ETag move with it', async () => {
    const { showId } = await createShow(t, { rows: 2, seatsPerRow: 5 });
    const c = await stream(showId);
    const f = new MapFollower();
    await c.until('the snapshot', () => c.events.length >= 1);
    f.apply(c);
    const before = await t.http.get(`/v1/shows/${showId}/seats`);
    const holdId = await hold(showId, ['A1', 'B2']);
    await c.until('the hold', () => c.events.length >= 2);
    f.apply(c);
    const d = JSON.parse(c.events[1]!.data);
    expect(c.events[1]!.event).toBe('delta');
    expect(d.changes.sort((x: { seat: string }, y: { seat: string }) => x.seat.localeCompare(y.seat))).toEqual([{ seat: 'A1', status: 'held' }, { seat: 'B2', status: 'held' }]);
    await release(holdId);
    await c.until('the release', () => c.events.length >= 3);
    f.apply(c);
    expect(f.problems).toEqual([]);
    expect(f.version).toBe(before.body.version + 2);
    expect([...f.seats.values()].every((s) => s === 'available')).toBe(true);
    const after = await t.http.get(`/v1/shows/${showId}/seats`);
    expect(after.body.version).toBe(f.version);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    await closeAll();
  });

  it('sends an expiry as a delta within 2 s after expires_at (the sweeper, through the same feed)', async () => {
    const { showId } = await createShow(t, { rows: 1, seatsPerRow: 4, hold_ttl_seconds: 1 });
    const c = await stream(showId);
    const f = new MapFollower();
    await c.until('snapshot', () => { f.apply(c); return f.version !== null; });
    const r = await t.http.post(`/v1/shows/${showId}/holds`, { seats: ['A3'] }, buyer.token);
    expect(r.status).toBe(201);
    await c.until('the hold', () => { f.apply(c); return f.seats.get('A3') === 'held'; });
    await c.until('the expiry', () => { f.apply(c); return f.seats.get('A3') === 'available'; }, 4000);
    const late = c.events.at(-1)!.at - Date.parse(r.body.expires_at);
    console.log(`expiry delta ${late} ms after expires_at`);
    expect(late).toBeLessThanOrEqual(2000);
    expect(f.problems).toEqual([]);
    await closeAll();
  });

  it('resumes from Last-Event-ID with the missed deltas only; too old or not a version: a fresh snapshot', async () => {
    const { showId } = await createShow(t, { rows: 2, seatsPerRow: 10 });
    await hold(showId, ['A1']); // so this instance has deltas of the show
    const c = await stream(showId);
    await c.until('snapshot', () => c.events.length >= 1);
    const f = new MapFollower();
    f.apply(c);
    c.close();
    const lastSeen = f.version!;
    await hold(showId, ['A2']);
    await hold(showId, ['A3']);

    const resumed = await stream(showId, { lastEventId: String(lastSeen) });
    f.reset();
    // Both holds may come in one delta (changes are coalesced per publish, 20 a second here).
    await resumed.until('the missed deltas', () => { f.apply(resumed); return f.seats.get('A2') === 'held' && f.seats.get('A3') === 'held'; });
    expect(resumed.events.every((e) => e.event === 'delta')).toBe(true);
    expect(f.problems).toEqual([]);
    // Nothing missed: an empty resume, then live deltas.
    const current = await stream(showId, { lastEventId: String(f.version) });
    await hold(showId, ['B1']);
    await current.until('the live delta', () => current.events.length >= 1);
    expect(current.events[0]!.event).toBe('delta');
    expect(current.events[0]!.id).toBe(String(f.version! + 1));

    // More versions than the buffer keeps (a map read after each hold publishes it as a version of its own).
    for (let i = 2; i <= BUFFER + 2; i++) {
      await hold(showId, [`B${i}`]);
      await t.http.get(`/v1/shows/${showId}/seats`);
    }
    await t.service.ctx.seatFeed.catchUp();
    await closeAll();
    const old = await stream(showId, { lastEventId: String(lastSeen) });
    await old.until('a snapshot', () => old.events.length >= 1);
    expect(old.events[0]!.event).toBe('snapshot');
    expect(JSON.parse(old.events[0]!.data).seats.find((s: { seat: string }) => s.seat === `B${BUFFER + 2}`).status).toBe('held');
    const junk = await stream(showId, { lastEventId: 'not-a-version' });
    await junk.until('a snapshot', () => junk.events.length >= 1);
    expect(junk.events[0]!.event).toBe('snapshot');
    await closeAll();
  });

  it('with ?section= sends that section\'s snapshot and only deltas that change it, with the show\'s versions', async () => {
    const { showId } = await sectionedShow(t);
    const c = await stream(showId, { section: '101' });
    const all = await stream(showId);
    await c.until('snapshot', () => c.events.length >= 1);
    const snap = JSON.parse(c.events[0]!.data);
    expect(snap.seats.map((s: { seat: string }) => s.seat).sort()).toEqual(['101-A1', '101-A2', '101-A3', '101-A4', '101-A5']);
    expect(snap.seats.every((s: { section: string }) => s.section === '101')).toBe(true);
    // A map read between the holds publishes each on its own, so each is a delta (a version) of its own.
    const versionAfter = async (seats: string[]) => {
      await hold(showId, seats);
      return (await t.http.get(`/v1/shows/${showId}/seats`)).body.version as number;
    };
    const v1 = await versionAfter(['102-A1']);
    const v2 = await versionAfter(['101-A2']);
    const v3 = await versionAfter(['101-A3', '102-A3']);
    expect([v1, v2, v3]).toEqual([snap.version + 1, snap.version + 2, snap.version + 3]);
    const whole = new MapFollower();
    await all.until('three deltas', () => { whole.apply(all); return whole.version === v3; });
    expect(whole.problems).toEqual([]);
    await c.until('two deltas', () => c.events.length >= 3);
    const deltas = c.events.slice(1).map((e) => ({ id: Number(e.id), changes: JSON.parse(e.data).changes }));
    expect(deltas).toEqual([
      { id: v2, changes: [{ seat: '101-A2', status: 'held' }] },
      { id: v3, changes: [{ seat: '101-A3', status: 'held' }] },
    ]);
    const f = new MapFollower();
    f.apply(c, false);
    expect(f.problems).toEqual([]);

    expectProblem(answerOf(await stream(showId, { section: '999' })), 400, 'VALIDATION_FAILED');
    const plain = await createShow(t, { rows: 1, seatsPerRow: 2 });
    expectProblem(answerOf(await stream(plain.showId, { section: '101' })), 400, 'VALIDATION_FAILED');
    expectProblem(answerOf(await stream(showId, { query: '?sectoin=101' })), 400, 'VALIDATION_FAILED');
    expectProblem(answerOf(await stream('show_000000000000000000000000')), 404, 'NOT_FOUND');
    await closeAll();
  });

  it('refuses viewers past the instance\'s bound with 503 OVERLOADED and Retry-After, and takes them again once one leaves', async () => {
    const { showId } = await createShow(t, { rows: 1, seatsPerRow: 2 });
    const four = await Promise.all([1, 2, 3, 4].map(() => stream(showId)));
    expect(four.map((c) => c.status)).toEqual([200, 200, 200, 200]);
    const refused = await stream(showId);
    expectProblem(answerOf(refused), 503, 'OVERLOADED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    four[0]!.close();
    const end = Date.now() + 3000;
    while (t.service.ctx.seatStreams.viewerCount > 3 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    expect((await stream(showId)).status).toBe(200);
    const metrics = await t.service.ctx.metrics.registry.getSingleMetricAsString('boxoffice_seat_stream_refused_total');
    expect(metrics).toMatch(/boxoffice_seat_stream_refused_total [1-9]/);
    await closeAll();
  });

  it('drops a viewer that cannot keep up (its sink refuses more), counts it, and lets it resume', async () => {
    const { showId } = await createShow(t, { rows: 1, seatsPerRow: 6 });
    const written: string[] = [];
    let ended = false;
    // A sink whose queue is full once a delta comes: what src/live/eventStream.ts reports for a viewer that stopped reading.
    const sink = {
      write: (events: Buffer) => { const text = events.toString('utf8'); written.push(text); return !text.includes('event: delta'); },
      beat: () => true,
      end: () => { ended = true; },
    };
    const slow = await t.service.ctx.seatStreams.open({ showId });
    await slow.start(sink);
    expect(written[1]).toMatch(/^id: \d+\nevent: snapshot\n/);
    expect(t.service.ctx.seatStreams.viewerCount).toBe(1);
    await hold(showId, ['A1']);
    const end = Date.now() + 3000;
    while (!ended && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    expect(ended).toBe(true);
    expect(t.service.ctx.seatStreams.viewerCount).toBe(0);
    const deltas = written.filter((w) => w.includes('event: delta'));
    expect(deltas).toHaveLength(1);
    const dropped = await t.service.ctx.metrics.registry.getSingleMetricAsString('boxoffice_seat_stream_dropped_total');
    expect(dropped).toMatch(/boxoffice_seat_stream_dropped_total\{reason="slow"\} 1/);
    // It resumes where it was dropped: the delta it was sent is not sent again.
    const lastSent = /^id: (\d+)/.exec(deltas[0]!)![1]!;
    await hold(showId, ['A2']);
    const resumed = await stream(showId, { lastEventId: lastSent });
    await resumed.until('the next delta', () => resumed.events.length >= 1);
    expect(resumed.events[0]).toMatchObject({ event: 'delta', id: String(Number(lastSent) + 1) });
    await closeAll();
  });
});
