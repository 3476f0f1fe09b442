// A Server-Sent Events connection over the raw node:http response: the headers,
// and a sink that reports a viewer too slow to keep up so the stream can drop it
// rather than buffer without bound.
// Each event goes to the socket as one HTTP/1.1 chunk framed once (./chunks.ts).
//
// What a viewer may have unsent: its snapshot (the first event larger than the
// bound; a stadium's is megabytes) while it reads it, and `maxQueuedBytes` beyond
// that. A viewer that takes none of its unsent bytes for `stallMs` has stopped
// reading and is dropped, however few they are; one with nothing unsent gets the
// heartbeat, so heartbeats never pile up behind a viewer that does not read. (Bytes
// the kernel took are out of reach: they count as sent.)
import type { ServerResponse } from 'node:http';
import type { StreamSink } from './streamSink.js';
import type { SeatStream } from './seatStreams.js';
import { GZIP_HEADER, gzipAhead, gzipped } from './gzipEvents.js';
import { chunkOf } from './chunks.js';

/**
 * Bytes handed to the socket at a time once it is backed up. Node hands whatever
 * waits to the kernel in one writev and reports it done only when all of it is,
 * so a snapshot written whole shows no progress until its last byte: in pieces,
 * a viewer reading slowly shows progress every 64 KiB.
 */
const PIECE = 64 * 1024;

export interface StreamBounds {
  maxQueuedBytes: number;
  stallMs: number;
}

/**
 * Sends an accepted stream over a response the web framework has let go of: the
 * head, then the viewer's events until either end closes. Rejects when the stream
 * failed to start; the connection is closed by then (the head went out already, so
 * there is no error answer to give: the viewer reconnects).
 */
export async function sendStream(stream: SeatStream, res: ServerResponse, bounds: StreamBounds, gzip: boolean): Promise<void> {
  const sink = openEventStream(res, bounds, gzip);
  res.once('close', () => stream.close());
  try {
    await stream.start(sink);
  } catch (err) {
    sink.end();
    stream.close();
    throw err;
  }
}

/** `gzip`: the client accepts it (Accept-Encoding); a stadium's snapshot is then about a seventeenth of its size. */
function openEventStream(res: ServerResponse, bounds: StreamBounds, gzip = false): StreamSink {
  const { maxQueuedBytes, stallMs } = bounds;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    // Proxies that buffer answers (nginx) would hold deltas back.
    'x-accel-buffering': 'no',
    vary: 'accept-encoding',
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
  });
  res.flushHeaders();
  // Framed writes straight to the socket only where node:http frames chunks and the
  // head has gone to this socket (a response queued behind another one on a kept-alive
  // connection has no socket yet, an HTTP/1.0 one is not chunked): else through res.
  const socket = res.socket;
  const framed = socket !== null && res.chunkedEncoding && res.writableLength === 0;
  const gone = () => res.destroyed || res.writableEnded || (framed && socket.destroyed);

  /** Bytes waiting for the socket to take the write in flight, in order. */
  let waiting: Buffer[] = [];
  let waitingBytes = 0;
  /** Writes handed over whose callback has not run: the socket (or res, before it has one) holds them. */
  let inFlight = 0;
  /** Bytes written so far (handed over or waiting). */
  let written = 0;
  /** `written` at the end of the first event larger than the bound: it may sit unsent whole. */
  let allowanceEnd = 0;
  /** Bytes taken (out of this process) at the last heartbeat, and when they last grew or nothing was left. */
  let takenAtBeat = 0;
  let movedAt = Date.now();

  const unsent = () => waitingBytes + res.writableLength;
  /** What goes on the wire for an event: compressed or not, then framed as a chunk or not. */
  const wire = (event: Buffer) => {
    const coded = gzip ? gzipped(event) : event;
    return framed ? chunkOf(coded) : coded;
  };
  const put = (bytes: Buffer) => {
    inFlight++;
    if (framed) socket.write(bytes, taken);
    else res.write(bytes, taken);
  };
  function taken(): void {
    inFlight--;
    handOver();
  }
  /** Hands the waiting bytes over, a piece at a time, whenever the socket has taken what it had. */
  function handOver(): void {
    if (gone()) {
      waiting = [];
      waitingBytes = 0;
      return;
    }
    while (waiting.length > 0 && inFlight === 0) {
      let bytes = waiting[0]!;
      if (bytes.length > PIECE) {
        waiting[0] = bytes.subarray(PIECE);
        bytes = bytes.subarray(0, PIECE);
      } else waiting.shift();
      waitingBytes -= bytes.length;
      put(bytes);
    }
  }
  function send(bytes: Buffer): void {
    written += bytes.length;
    if (waiting.length === 0 && inFlight === 0 && bytes.length <= PIECE) put(bytes);
    else {
      waiting.push(bytes);
      waitingBytes += bytes.length;
      handOver();
    }
  }

  if (gzip) send(framed ? chunkOf(GZIP_HEADER) : GZIP_HEADER);
  return {
    prepare(event) {
      return gzip ? gzipAhead(event) : Promise.resolve();
    },
    write(event) {
      if (gone()) return false;
      send(wire(event));
      if (allowanceEnd === 0 && event.length > maxQueuedBytes) allowanceEnd = written;
      // The unsent bytes are the last ones written: those after the allowed event count.
      return Math.min(unsent(), written - allowanceEnd) <= maxQueuedBytes;
    },
    beat(heartbeat) {
      if (gone()) return false;
      const left = unsent();
      const out = written - left;
      const now = Date.now();
      if (left === 0 || out !== takenAtBeat) {
        takenAtBeat = out;
        movedAt = now;
      } else if (now - movedAt >= stallMs) return false;
      // Bytes still on their way keep the connection busy: no heartbeat behind them.
      if (left === 0) send(wire(heartbeat));
      return true;
    },
    end() {
      // A viewer dropped for being slow has bytes queued that it will not read: close at once.
      if (unsent() > 0) res.destroy();
      else res.end();
    },
  };
}
