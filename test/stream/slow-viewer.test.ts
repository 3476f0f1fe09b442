// A viewer that never reads (API.md "Seat map": dropped once its unsent bytes pass
// a bound). A raw socket asks for a big show's stream and never reads a byte: the
// snapshot fills the kernel's buffers and waits in the process. The snapshot may
// exceed the bound while it is being read, but a viewer that takes none of it for
// STREAM_STALL_MS is dropped, and heartbeats do not pile up behind it.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { createShow } from '../support/catalog.js';
import { openStream } from './sseClient.js';
import { liveMap } from './helpers.js';

let t: TestService;
const sockets: net.Socket[] = [];

beforeAll(async () => {
  t = await startTestService({ config: { liveMap: liveMap({ maxQueuedBytes: 4096, heartbeatMs: 200, stallMs: 2000 }) } });
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await t?.close();
});

/** Sends the stream's request on a socket that never reads; resolves once it is written. */
function neverReading(path: string): Promise<net.Socket> {
  const { port } = new URL(t.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port: Number(port) }, () => {
      socket.pause();
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`, () => resolve(socket));
    });
    socket.on('error', reject);
    sockets.push(socket);
  });
}

async function until(what: string, pred: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a viewer that never reads', () => {
  it('is dropped once it has taken nothing for STREAM_STALL_MS, while a viewer that reads stays', async () => {
    // 26 rows of 2,500: a snapshot of about 5.9 MB, more than the kernel takes on loopback for a reader that reads nothing (the send buffer grows to tcp_wmem's 4 MB there).
    const { showId } = await createShow(t, { rows: 26, seatsPerRow: 2500 });
    const reading = await openStream(t, showId);
    await reading.until('the snapshot', () => reading.events.length >= 1, 20_000);
    const snapshotBytes = Buffer.byteLength(reading.events[0]!.data);
    expect(snapshotBytes).toBeGreaterThan(5_000_000);

    const stalled = await neverReading(`/v1/shows/${showId}/seats/stream`);
    await until('the stalled viewer attached', () => t.service.ctx.seatStreams.viewerCount === 2, 3000);
    const since = Date.now();
    // Checked at each heartbeat (200 ms): dropped 2-2.2 s after it last took a byte (and some slack for a busy machine).
    await until('the stalled viewer dropped', () => t.service.ctx.seatStreams.viewerCount === 1, 6000);
    console.log(`a viewer that never read its ${snapshotBytes}-byte snapshot was dropped after ${Date.now() - since} ms`);
    const dropped = await t.service.ctx.metrics.registry.getSingleMetricAsString('boxoffice_seat_stream_dropped_total');
    expect(dropped).toMatch(/boxoffice_seat_stream_dropped_total\{reason="slow"\} 1\b/);
    // The server closed its side: the client, reading at last, sees the connection end.
    stalled.resume();
    await until('the stalled socket closed', () => stalled.destroyed || stalled.readableEnded, 3000);
    // The viewer that reads is still served: heartbeats keep coming.
    const beats = reading.comments.length;
    await reading.until('a heartbeat', () => reading.comments.length > beats, 2000);
    reading.close();
    await until('no viewer left', () => t.service.ctx.seatStreams.viewerCount === 0, 3000);
  });
});
