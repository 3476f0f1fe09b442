// A Server-Sent Events connection over the raw node:http response: the headers,
// and a sink that reports a viewer too slow to keep up (its unsent bytes beyond
// an allowance) so the stream can drop it rather than buffer without bound.
//
// The stream is sent with HTTP/1.1 chunked framing, as node:http would, but each
// event's chunk (size line, bytes, CRLF) is framed once per event and written to
// the socket as one buffer: a delta fanned out to 10,000 viewers is one framed
// Buffer and 10,000 socket writes, not 40,000 writes through ServerResponse
// (which frames every write itself: size, CRLF, data, CRLF) with a UTF-8 encoding each.
import type { ServerResponse } from 'node:http';
import type { StreamSink } from '../app/seatStream.js';

const CRLF = Buffer.from('\r\n');

/** Event bytes → the same bytes as one HTTP/1.1 chunk; each event buffer is framed once, whatever the number of viewers. */
const chunks = new WeakMap<Buffer, Buffer>();

export function chunkOf(event: Buffer): Buffer {
  let chunk = chunks.get(event);
  if (!chunk) {
    chunk = Buffer.concat([Buffer.from(`${event.length.toString(16)}\r\n`, 'latin1'), event, CRLF]);
    chunks.set(event, chunk);
  }
  return chunk;
}

export function openEventStream(res: ServerResponse, maxQueuedBytes: number): StreamSink {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    // Proxies that buffer answers (nginx) would hold deltas back.
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  // Framed writes straight to the socket only where node:http frames chunks and the
  // head has gone to this socket (a response queued behind another one on a kept-alive
  // connection has no socket yet, an HTTP/1.0 one is not chunked): else through res.
  const socket = res.socket;
  const framed = socket !== null && res.chunkedEncoding && res.writableLength === 0;
  // The largest event (the snapshot, for a big map) may sit in the queue whole.
  let allowance = maxQueuedBytes;
  return {
    write(event) {
      if (res.destroyed || res.writableEnded || (framed && socket.destroyed)) return false;
      allowance = Math.max(allowance, maxQueuedBytes + event.length);
      if (framed) socket.write(chunkOf(event));
      else res.write(event);
      return res.writableLength <= allowance;
    },
    end() {
      // A viewer dropped for being slow has bytes queued that it will not read: close at once.
      if (res.writableLength > 0) res.destroy();
      else res.end();
    },
  };
}
