// The seat map stream's bounds (API.md "Seat map"): at most STREAM_MAX_PER_ADDRESS
// open streams per client address and a total the process can hold beside its API
// traffic (derived from its open file limit); beyond either, 503 OVERLOADED with
// Retry-After, while /healthz, the map and other clients' streams keep answering.
// The counts are given back however a stream ends. Clients are told apart by their
// own loopback address (Linux routes all of 127/8 to lo).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { startTestService, type TestService } from '../support/service.js';
import { createShow } from '../support/catalog.js';
import { expectProblem } from '../support/problems.js';
import { HttpClient } from '../support/http.js';
import { openStream, type SseConnection } from './sseClient.js';
import { answerOf, liveMap } from './helpers.js';

/** STREAM_MAX_PER_ADDRESS's default. */
const PER_ADDRESS = 64;

async function until(what: string, pred: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Opens `n` streams of the show from one address, all at once. */
function streams(t: TestService, showId: string, n: number, from: string): Promise<SseConnection[]> {
  return Promise.all(Array.from({ length: n }, () => openStream(t, showId, { from })));
}

async function refusedOverloaded(c: SseConnection): Promise<void> {
  expectProblem(answerOf(c), 503, 'OVERLOADED');
  expect(Number(c.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  // A refused client keeps no descriptor open on a kept-alive connection.
  expect(c.headers.connection).toBe('close');
}

describe('streams per client address', () => {
  let t: TestService;
  let showId: string;
  const open: SseConnection[] = [];
  const other = new Agent({ connect: { localAddress: '127.0.0.2' } });
  let closed = false;

  beforeAll(async () => {
    // 127.0.0.3 is exempt from rate limits (RATE_LIMIT_EXEMPT), the others are not.
    t = await startTestService({ config: { liveMap: liveMap(), rateLimitExempt: ['127.0.0.3'] } });
    ({ showId } = await createShow(t, { rows: 2, seatsPerRow: 5 }));
  });
  afterAll(async () => {
    for (const c of open) c.close();
    await other.close();
    if (!closed) await t?.close();
  });

  it(`answers the ${PER_ADDRESS + 1}th stream of one address 503 OVERLOADED, while the API and other addresses are served`, async () => {
    const first = await streams(t, showId, PER_ADDRESS, '127.0.0.1');
    open.push(...first);
    expect(first.every((c) => c.status === 200)).toBe(true);
    await refusedOverloaded(await openStream(t, showId, { from: '127.0.0.1' }));
    expect((await t.http.get('/healthz')).status).toBe(200);
    expect((await t.http.get(`/v1/shows/${showId}/seats`)).status).toBe(200);
    const fromOther = await openStream(t, showId, { from: '127.0.0.2' });
    open.push(fromOther);
    expect(fromOther.status).toBe(200);
    await fromOther.until('the snapshot', () => fromOther.events.length >= 1);
    expect((await new HttpClient(t.baseUrl, other).get('/healthz')).status).toBe(200);
    const metric = await t.service.ctx.metrics.registry.getSingleMetricAsString('boxoffice_seat_stream_refused_per_address_total');
    expect(metric).toMatch(/boxoffice_seat_stream_refused_per_address_total 1\b/);
  });

  it('takes streams from the address again as its streams end, however they end', async () => {
    // The client goes away.
    open.shift()!.close();
    await until('the stream closed', () => t.service.ctx.seatStreams.viewerCount === PER_ADDRESS);
    const again = await openStream(t, showId, { from: '127.0.0.1' });
    open.push(again);
    expect(again.status).toBe(200);
    await refusedOverloaded(await openStream(t, showId, { from: '127.0.0.1' }));
    // The service ends them (a resync drops every viewer).
    t.service.ctx.seatStreams.endAll('resync');
    await until('every stream ended', () => open.every((c) => c.ended));
    expect(t.service.ctx.seatStreams.viewerCount).toBe(0);
    expect(t.service.ctx.seatStreams.addressesCounted).toBe(0);
    const full = await streams(t, showId, PER_ADDRESS, '127.0.0.1');
    open.push(...full);
    expect(full.every((c) => c.status === 200)).toBe(true);
    for (const c of open.splice(0)) c.close();
    await until('every stream closed', () => t.service.ctx.seatStreams.viewerCount === 0);
    expect(t.service.ctx.seatStreams.addressesCounted).toBe(0);
  });

  it('does not count an address exempt from rate limits (load tests), which the total still bounds', async () => {
    const many = await streams(t, showId, PER_ADDRESS + 1, '127.0.0.3');
    open.push(...many);
    expect(many.every((c) => c.status === 200)).toBe(true);
    expect(t.service.ctx.seatStreams.addressesCounted).toBe(0);
    for (const c of open.splice(0)) c.close();
    await until('every stream closed', () => t.service.ctx.seatStreams.viewerCount === 0);
  });

  it('gives the counts back when the service closes with streams open', async () => {
    open.push(...(await streams(t, showId, 3, '127.0.0.1')));
    expect(t.service.ctx.seatStreams.addressesCounted).toBe(1);
    closed = true;
    await t.close();
    expect(t.service.ctx.seatStreams.viewerCount).toBe(0);
    expect(t.service.ctx.seatStreams.addressesCounted).toBe(0);
  });
});

describe('the total of streams, from the open file limit', () => {
  let t: TestService;
  const open: SseConnection[] = [];

  beforeAll(async () => {
    // 300 descriptors less the reserve (256, the pool of 20 and the connection aside) leave 23 streams.
    t = await startTestService({ config: { liveMap: liveMap() }, openFiles: { soft: 300, hard: 300 } });
  });
  afterAll(async () => {
    for (const c of open) c.close();
    await t?.close();
  });

  it('refuses the stream past the total with 503 OVERLOADED while the API answers', async () => {
    const { showId } = await createShow(t, { rows: 1, seatsPerRow: 4 });
    const held = await Promise.all(['127.0.0.1', '127.0.0.2'].map((from) => streams(t, showId, from === '127.0.0.1' ? 12 : 11, from)));
    open.push(...held.flat());
    expect(open.map((c) => c.status)).toEqual(Array(23).fill(200));
    const refused = await openStream(t, showId, { from: '127.0.0.4' });
    await refusedOverloaded(refused);
    expect(JSON.parse(refused.body).detail).toMatch(/23/);
    expect((await t.http.get('/healthz')).status).toBe(200);
    expect((await t.http.get(`/v1/shows/${showId}/seats`)).status).toBe(200);
    open.pop()!.close();
    await until('one stream closed', () => t.service.ctx.seatStreams.viewerCount === 22);
    const next = await openStream(t, showId, { from: '127.0.0.4' });
    open.push(next);
    expect(next.status).toBe(200);
  });
});
