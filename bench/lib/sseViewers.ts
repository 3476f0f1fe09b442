// Many Server-Sent Events viewers of one stream, in a worker thread of the bench
// (its own event loop, so parsing thousands of streams does not delay the hold
// loop's clock). Each viewer is one node:http connection and a byte scanner: it
// finds event boundaries with Buffer.indexOf, keeps only an event's first bytes
// (its `id:` and `event:` lines), never joins or parses a snapshot or a delta's
// JSON. Per viewer: the snapshot's id, deltas received in order, gaps, repeats,
// whether the stream ended early; per delta version, each viewer's arrival time.
//
// workerData: { origin, path, count, batch }. Messages in: {type: 'settle', version, timeoutMs}, 'collect', 'close'.
// Messages out: progress, opened, settled, results (see ViewerResults).
import http from 'node:http';
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
  const requests: http.ClientRequest[] = [];
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

  const open = (i: number) =>
    new Promise<void>((resolve) => {
      const req = http.get(url, { agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
        if (res.statusCode !== 200) {
          const key = `HTTP ${res.statusCode}`;
          failures[key] = (failures[key] ?? 0) + 1;
          res.resume();
          ended[i] = 1;
          return resolve();
        }
        let head = '';
        let lastNl = false;
        res.on('data', (buf: Buffer) => {
          const at = now();
          let start = 0;
          if (lastNl && buf[0] === 10) {
            onEvent(i, head, at);
            head = '';
            start = 1;
          }
          for (;;) {
            const end = buf.indexOf(NLNL, start);
            if (end < 0) break;
            if (head.length < HEAD) head += buf.toString('latin1', start, Math.min(end, start + HEAD - head.length));
            onEvent(i, head, at);
            head = '';
            start = end + 2;
          }
          if (start < buf.length) {
            if (head.length < HEAD) head += buf.toString('latin1', start, Math.min(buf.length, start + HEAD - head.length));
            lastNl = buf[buf.length - 1] === 10;
          } else lastNl = false;
        });
        const done = () => { if (!closing) ended[i] = 1; };
        res.on('end', done).on('close', done).on('error', done);
        resolve();
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (closing) return;
        const key = `network ${err.code ?? err.name}`;
        failures[key] = (failures[key] ?? 0) + 1;
        ended[i] = 1;
        resolve();
      });
      requests.push(req);
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
