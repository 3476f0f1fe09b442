// Many Server-Sent Events viewers of one stream, in a worker thread of the bench
// (its own event loop, so parsing thousands of streams does not delay the hold
// loop's clock). Each viewer is one TCP connection that sends a GET and reads the
// answer itself: the status line and headers, then the body, de-chunked when it is
// chunked (both servers chunk it), with Buffer.indexOf over the chunk sizes. At
// 10,000 viewers node:http's client (parser, IncomingMessage stream, per viewer)
// cost this thread more CPU per delivery than the servers spent sending, on the
// same two cores. Then a byte scanner: it
// finds event boundaries with Buffer.indexOf, keeps only an event's first bytes
// (its `id:` and `event:` lines), never joins or parses a snapshot or a delta's
// JSON. Per viewer: the snapshot's id, deltas received in order, gaps, repeats,
// whether the stream ended early; per delta version, each viewer's arrival time.
//
// workerData: { origin, path, count, batch }. Messages in: {type: 'settle', version, timeoutMs}, 'collect', 'close'.
// Messages out: progress, opened, settled, results (see ViewerResults).
import net from 'node:net';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';

export interface ViewerOptions {
  origin: string;
  path: string;
  count: number;
  batch: number;
}

export interface ViewerResults {
  type: 'results';
  /** Per viewer: the snapshot's version (-1 when none came), the last delta version, deltas received in order, gaps and repeats. */
  snapshot: Float64Array;
  last: Float64Array;
  received: Float64Array;
  gaps: Float64Array;
  repeats: Float64Array;
  /** Per viewer: 1 when its stream ended before the bench closed it. */
  ended: Uint8Array;
  /** Arrival times (epoch ms) of delta `firstVersion + k` at viewer i: arrivals[k * count + i]; NaN when it did not arrive. */
  firstVersion: number;
  versions: number;
  arrivals: Float64Array;
  /** Answers other than 200 and connection errors, by kind. */
  failures: Record<string, number>;
  /** This thread's event loop delay (ms) from the moment every viewer had its snapshot: how late it may have read. */
  loopDelay: { p50: number; p99: number; max: number };
}

const HEAD = 48; // bytes of an event kept: enough for "id: <version>\nevent: snapshot"
const NLNL = Buffer.from('\n\n');
const now = () => performance.timeOrigin + performance.now();

function run(o: ViewerOptions): void {
  const port = parentPort!;
  const n = o.count;
  const snapshot = new Float64Array(n).fill(-1);
  const last = new Float64Array(n).fill(-1);
  const received = new Float64Array(n);
  const gaps = new Float64Array(n);
  const repeats = new Float64Array(n);
  const ended = new Uint8Array(n);
  const byVersion = new Map<number, Float64Array>();
  const failures: Record<string, number> = {};
  const requests: net.Socket[] = [];
  let closing = false;
  const url = new URL(o.path, o.origin);
  const loop = monitorEventLoopDelay({ resolution: 10 });

  const onEvent = (i: number, head: string, at: number) => {
    if (!head.startsWith('id: ')) return; // retry, heartbeat comments
    const nl = head.indexOf('\n');
    const version = Number(head.slice(4, nl));
    const kind = head.slice(nl + 1, nl + 1 + 12);
    if (kind.startsWith('event: snap')) {
      snapshot[i] = version;
      last[i] = version;
      return;
    }
    if (!kind.startsWith('event: delta')) return;
    if (version <= last[i]!) {
      repeats[i]!++;
      return;
    }
    if (last[i]! >= 0 && version !== last[i]! + 1) gaps[i]! += version - last[i]! - 1;
    last[i] = version;
    received[i]!++;
    let at_ = byVersion.get(version);
    if (!at_) byVersion.set(version, (at_ = new Float64Array(n).fill(NaN)));
    at_[i] = at;
  };

  /** The body's bytes after the head (de-chunked): events found with indexOf, as before. */
  const events = (i: number) => {
    let head = '';
    let lastNl = false;
    return (buf: Buffer, from: number, to: number, at: number) => {
      let start = from;
      if (lastNl && start < to && buf[start] === 10) {
        onEvent(i, head, at);
        head = '';
        start++;
      }
      for (;;) {
        const end = buf.indexOf(NLNL, start);
        if (end < 0 || end + 2 > to) break;
        if (head.length < HEAD) head += buf.toString('latin1', start, Math.min(end, start + HEAD - head.length));
        onEvent(i, head, at);
        head = '';
        start = end + 2;
      }
      if (start < to) {
        if (head.length < HEAD) head += buf.toString('latin1', start, Math.min(to, start + HEAD - head.length));
        lastNl = buf[to - 1] === 10;
      } else lastNl = false;
    };
  };

  const request = `GET ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\naccept: text/event-stream\r\n\r\n`;
  const open = (i: number) =>
    new Promise<void>((resolve) => {
      const socket = net.connect({ host: url.hostname, port: Number(url.port) });
      requests.push(socket);
      const body = events(i);
      let headBytes: Buffer | null = Buffer.alloc(0); // until the head is read
      let chunked = false;
      /** Chunked: bytes left of the chunk being read (-1: reading a size line; -2: the CRLF after a chunk). */
      let left = -1;
      let sizeLine = '';
      let settled = false;
      const settle = () => { if (!settled) { settled = true; resolve(); } };
      const fail = (key: string) => {
        failures[key] = (failures[key] ?? 0) + 1;
        ended[i] = 1;
        socket.destroy();
        settle();
      };
      socket.setNoDelay(true);
      socket.once('connect', () => socket.write(request));
      socket.on('data', (buf: Buffer) => {
        const at = now();
        let p = 0;
        if (headBytes) {
          const all: Buffer = headBytes.length ? Buffer.concat([headBytes, buf]) : buf;
          const end = all.indexOf('\r\n\r\n');
          if (end < 0) { headBytes = all; return; }
          const headText = all.toString('latin1', 0, end);
          const status = Number(headText.slice(9, 12));
          if (status !== 200) return fail(`HTTP ${status}`);
          chunked = /\r\ntransfer-encoding:\s*chunked/i.test(headText);
          headBytes = null;
          settle();
          buf = all;
          p = end + 4;
        }
        if (!chunked) return body(buf, p, buf.length, at);
        while (p < buf.length) {
          if (left > 0) {
            const to = Math.min(buf.length, p + left);
            body(buf, p, to, at);
            left -= to - p;
            p = to;
            if (left === 0) left = -2;
          } else if (left === -2) {
            // The CRLF after a chunk's data (it may arrive a byte at a time).
            if (buf[p] === 13) p++;
            else if (buf[p] === 10) { p++; left = -1; } else return fail('bad chunk framing');
          } else {
            const nl = buf.indexOf(10, p);
            if (nl < 0) { sizeLine += buf.toString('latin1', p); return; }
            sizeLine += buf.toString('latin1', p, nl);
            p = nl + 1;
            const size = parseInt(sizeLine, 16);
            sizeLine = '';
            if (Number.isNaN(size)) return fail('bad chunk size');
            if (size === 0) { ended[i] = closing ? ended[i]! : 1; socket.end(); return; }
            left = size;
          }
        }
      });
      const done = () => { if (!closing) ended[i] = 1; settle(); };
      socket.on('end', done).on('close', done);
      socket.on('error', (err: NodeJS.ErrnoException) => {
        if (closing) return settle();
        if (!settled) return fail(`network ${err.code ?? err.name}`);
        ended[i] = 1;
      });
    });

  void (async () => {
    for (let from = 0; from < n; from += o.batch) {
      const to = Math.min(n, from + o.batch);
      await Promise.all(Array.from({ length: to - from }, (_, k) => open(from + k)));
      port.postMessage({ type: 'progress', opened: to, failed: Object.values(failures).reduce((a, b) => a + b, 0) });
    }
    // Opened: answer once every viewer has its snapshot (or failed).
    for (;;) {
      let waiting = 0;
      for (let i = 0; i < n; i++) if (snapshot[i]! < 0 && !ended[i]) waiting++;
      if (waiting === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    loop.enable();
    port.postMessage({ type: 'opened', failures, withSnapshot: snapshot.filter((v) => v >= 0).length });
  })();

  port.on('message', (m: string | { type: 'settle'; version: number; timeoutMs: number }) => {
    if (typeof m === 'object') {
      // Answers once every viewer still open has the delta `version` (or at the timeout).
      const t0 = Date.now();
      const check = () => {
        let behind = 0;
        for (let i = 0; i < n; i++) if (!ended[i] && snapshot[i]! >= 0 && last[i]! < m.version) behind++;
        if (behind === 0 || Date.now() - t0 >= m.timeoutMs) port.postMessage({ type: 'settled', behind, ms: Date.now() - t0 });
        else setTimeout(check, 50);
      };
      check();
    } else if (m === 'collect') {
      const versions = [...byVersion.keys()];
      const firstVersion = versions.length ? Math.min(...versions) : 0;
      const count = versions.length ? Math.max(...versions) - firstVersion + 1 : 0;
      const arrivals = new Float64Array(count * n).fill(NaN);
      for (const [v, at] of byVersion) arrivals.set(at, (v - firstVersion) * n);
      loop.disable();
      const loopDelay = { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 };
      const r: ViewerResults = { type: 'results', snapshot, last, received, gaps, repeats, ended, firstVersion, versions: count, arrivals, failures, loopDelay };
      port.postMessage(r, [arrivals.buffer]);
    } else if (m === 'close') {
      closing = true;
      for (const req of requests) req.destroy();
      setTimeout(() => process.exit(0), 200);
    }
  });
}

if (!isMainThread) run(workerData as ViewerOptions);
