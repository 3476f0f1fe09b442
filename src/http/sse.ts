// A Server-Sent Events connection over the raw node:http response: the headers,
// and a sink that reports a viewer too slow to keep up (its unsent bytes beyond
// an allowance) so the stream can drop it rather than buffer without bound.
import type { ServerResponse } from 'node:http';
import type { StreamSink } from '../app/seatStream.js';

export function openEventStream(res: ServerResponse, maxQueuedBytes: number): StreamSink {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    // Proxies that buffer answers (nginx) would hold deltas back.
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  // The largest event (the snapshot, for a big map) may sit in the queue whole.
  let allowance = maxQueuedBytes;
  return {
    write(text) {
      if (res.destroyed || res.writableEnded) return false;
      allowance = Math.max(allowance, maxQueuedBytes + text.length);
      res.write(text);
      return res.writableLength <= allowance;
    },
    end() {
      // A viewer dropped for being slow has bytes queued that it will not read: close at once.
      if (res.writableLength > 0) res.destroy();
      else res.end();
    },
  };
}
