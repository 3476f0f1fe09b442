// The fan-out of a delta to many viewers goes a slice of viewers per event loop
// turn; deltas that arrive while a pass is under way must still reach every
// viewer once, in version order, and a viewer attaching mid-pass must not get
// a delta twice. In process, with a feed and map stand-ins (no I/O needed).
import { describe, expect, it } from 'vitest';
import { setImmediate as tick } from 'node:timers/promises';
import { SeatStreams } from '../../src/live/seatStreams.js';
import type { StreamSink } from '../../src/live/streamSink.js';
import { DeltaBuffer, type Delta } from '../../src/live/deltas.js';
import type { FeedListener, SeatFeed } from '../../src/live/seatFeed.js';
import type { SeatMaps } from '../../src/app/seatMaps.js';
import type { HallCatalog } from '../../src/app/hallCatalog.js';
import type { LiveMetrics } from '../../src/live/liveMetrics.js';
import type { LiveMapSettings } from '../../src/config.js';

const SHOW = 'shw_fanout';
const VIEWERS = 1700; // more than three slices

function setUp(heartbeatMs = 60_000) {
  const buffer = new DeltaBuffer(600);
  let listener: FeedListener | null = null;
  const feed = {
    listen: (l: FeedListener) => { listener = l; return () => { listener = null; }; },
    buffer: () => buffer,
    catchUp: async () => {},
  } as unknown as SeatFeed;
  const maps = {
    get: () => ({ answer: Promise.resolve({ etag: '"v0"', version: 0, body: Buffer.from('{"show_id":"shw_fanout","version":0,"seats":[]}') }), cached: true }),
  } as unknown as SeatMaps;
  const halls = { forShow: async () => ({ hallId: 'hal_1', seats: [], seatIds: new Set<string>() }) } as unknown as HallCatalog;
  const counter = { inc: () => {} };
  const metrics = { refused: counter, deltasSent: counter, dropped: counter } as unknown as LiveMetrics;
  const settings = { heartbeatMs, retryMs: 2000, maxViewers: 10_000, maxQueuedBytes: 1 << 20 } as LiveMapSettings;
  const streams = new SeatStreams(feed, maps, halls, settings, metrics);
  const publish = (version: number) => {
    const d: Delta = { show_id: SHOW, version, changes: [{ seat: `A${version}`, status: 'held' }] };
    buffer.push(d);
    listener!.deltas(SHOW, [d]);
  };
  return { streams, publish, buffer };
}

/** A sink that keeps the delta ids it was sent. */
function recorder(): StreamSink & { ids: number[] } {
  const ids: number[] = [];
  return {
    ids,
    write(events) {
      for (const m of events.toString('utf8').matchAll(/^id: (\d+)\nevent: delta$/gm)) ids.push(Number(m[1]));
      return true;
    },
    beat: () => true,
    end() {},
  };
}

async function viewer(streams: SeatStreams): Promise<StreamSink & { ids: number[] }> {
  const sink = recorder();
  const s = await streams.open({ showId: SHOW });
  await s.start(sink);
  return sink;
}

describe('the fan-out to many viewers', () => {
  it('reaches every viewer once per delta, in order, with deltas arriving mid-pass and a viewer attaching mid-pass', async () => {
    const { streams, publish } = setUp();
    publish(1); // the buffer reaches back to the snapshot's version 0
    const sinks = await Promise.all(Array.from({ length: VIEWERS }, () => viewer(streams)));
    for (const s of sinks) expect(s.ids).toEqual([1]);

    publish(2);
    // The first slice went at once; most viewers are still waiting for their turn.
    const reached = sinks.filter((s) => s.ids.length === 2).length;
    expect(reached).toBeGreaterThan(0);
    expect(reached).toBeLessThan(VIEWERS);
    publish(3);
    publish(4);
    const late = await viewer(streams); // attaches mid-pass: gets 1..4 from the buffer
    for (let i = 0; i < 40; i++) await tick();

    for (const s of [...sinks, late]) expect(s.ids).toEqual([1, 2, 3, 4]);
    publish(5);
    for (let i = 0; i < 40; i++) await tick();
    for (const s of [...sinks, late]) expect(s.ids).toEqual([1, 2, 3, 4, 5]);
    streams.stop();
  });
});

describe('the heartbeat to many viewers', () => {
  it('beats a tenth of the viewers at a time, and every viewer once a period', async () => {
    const { streams } = setUp(1000);
    const beats: number[] = [];
    await Promise.all(Array.from({ length: 1000 }, async (_, i) => {
      beats[i] = 0;
      const s = await streams.open({ showId: SHOW });
      await s.start({ write: () => true, beat: () => { beats[i]!++; return true; }, end() {} });
    }));
    const beaten = () => beats.filter((n) => n > 0).length;
    const end = Date.now() + 2000;
    while (beaten() === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
    // One round has run: its tenth, not all 1,000 in one go.
    expect(beaten()).toBe(100);
    await new Promise((r) => setTimeout(r, 1000));
    expect(Math.min(...beats)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...beats)).toBeLessThanOrEqual(2);
    streams.stop();
  });
});
