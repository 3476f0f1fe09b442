// Benchmark: the live seat map stream under a crowd. V viewers (default 10,000)
// follow one show's GET /v1/shows/{id}/seats/stream on one service instance while
// buyers race for its seats (2 random adjacent seats, hold_ttl_seconds 1, so seats
// keep expiring back through the sweeper and the race never ends). Measured:
//   - commit-to-delivery per (viewer, seat change): from the moment the hold's 201
//     answer reached the bench (the commit happened just before) to the moment a
//     viewer got the delta naming that seat as held;
//   - the fan-out alone: from the first viewer's arrival (a control connection that
//     joined before the crowd) to each viewer's, per (viewer, delta);
//   - delivered fraction: deltas received in order / versions from each viewer's
//     snapshot to the last one published;
//   - memory per connection: the server's VmRSS before and after opening the viewers;
//   - hold throughput without viewers (before and after) and with them.
// Beside it, in the same run, a bare node:http SSE broadcaster (bench/lib/bareStream.ts)
// that the same number of viewers follow while the same hold race runs: the bench
// forwards every delta the control connection receives, byte for byte, to it.
// Viewers live in a worker thread of this process (one socket each, a byte scanner
// that never parses JSON), so this process needs V + C + ~50 file descriptors.
//
//   npm run bench:stream           BENCH_VIEWERS=10000 BENCH_SECONDS=15 BENCH_WARMUP_SECONDS=2
//   BENCH_HOLD_CONCURRENCY=32      connections racing for holds (one buyer each)
//   BENCH_SEATS=400                seats of the show (rows of 20)
//   BENCH_OPEN_BATCH=500           viewers connecting at a time
import os from 'node:os';
import http from 'node:http';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { Agent, request } from 'undici';
import { runBenchmark, onCleanup } from './lib/cleanup.js';
import { adminQuery, createBenchDatabase } from './lib/db.js';
import { REPO_ROOT, machineBusySeconds, startChild, startService } from './lib/child.js';
import { adminToken, closeApiClient, createShow, registerBuyers } from './lib/api.js';
import type { ViewerResults } from './lib/sseViewers.js';
import { envNumber, fixed, table } from './lib/stats.js';

const GOAL_P99_MS = 250;
const say = (s: string) => process.stdout.write(`${s}\n`);
const note = (s: string) => process.stderr.write(`${s}\n`);
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------
// Latency histogram: 0.1 ms bins up to 60 s; weights so (viewer, change) pairs
// need no array of their own.
class Histogram {
  private readonly bins = new Float64Array(600_000);
  count = 0;
  negative = 0;
  add(ms: number): void {
    if (ms < 0) this.negative++;
    const b = Math.min(this.bins.length - 1, Math.max(0, Math.floor(ms * 10)));
    this.bins[b]!++;
    this.count++;
  }
  at(q: number): number {
    if (this.count === 0) return NaN;
    const rank = Math.ceil(q * this.count);
    let seen = 0;
    for (let b = 0; b < this.bins.length; b++) {
      seen += this.bins[b]!;
      if (seen >= rank) return (b + 1) / 10;
    }
    return NaN;
  }
}

// ---------------------------------------------------------------------------
// The control connection: one viewer of the service that parses every delta,
// keeps when it came and which seats it shows held, and forwards it to the bare
// broadcaster when asked.
interface DeltaSeen { at: number; held: string[]; sentAt: number }

class Control {
  snapshotVersion = -1;
  last = -1;
  readonly deltas = new Map<number, DeltaSeen>();
  readonly problems: string[] = [];
  ended = false;
  /** Forward deltas above this version to the bare broadcaster (null: do not). */
  forwardAbove: number | null = null;
  lastForwarded = -1;
  private forwarding: Promise<void> = Promise.resolve();
  private req: http.ClientRequest | null = null;

  constructor(private readonly bare: { origin: string; agent: Agent } | null) {}

  open(url: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.req = http.get(url, { agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`control stream: HTTP ${res.statusCode}`));
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (s: string) => {
          const at = now();
          buf += s;
          let end: number;
          while ((end = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, end);
            buf = buf.slice(end + 2);
            this.event(block, at);
          }
        });
        res.on('close', () => { this.ended = true; });
        resolve();
      });
      this.req.on('error', reject);
    });
  }

  private event(block: string, at: number): void {
    if (!block.startsWith('id: ')) return;
    const lines = block.split('\n');
    const version = Number(lines[0]!.slice(4));
    const kind = lines[1];
    if (kind === 'event: snapshot') {
      if (this.snapshotVersion < 0) this.snapshotVersion = version;
      else this.problems.push(`a second snapshot (${version}) on the control stream`);
      this.last = version;
      return;
    }
    if (kind !== 'event: delta') return;
    if (version !== this.last + 1) this.problems.push(`control: delta ${version} after ${this.last}`);
    this.last = version;
    const data = JSON.parse(lines.slice(2).map((l) => l.slice(6)).join('\n')) as { version: number; changes: { seat: string; status: string }[] };
    const seen: DeltaSeen = { at, held: data.changes.filter((c) => c.status === 'held').map((c) => c.seat), sentAt: NaN };
    this.deltas.set(version, seen);
    if (this.bare && this.forwardAbove !== null && version > this.forwardAbove) {
      const bytes = Buffer.from(`${block}\n\n`);
      const bare = this.bare;
      this.forwarding = this.forwarding.then(async () => {
        seen.sentAt = now();
        const r = await request(`${bare.origin}/publish`, { method: 'POST', body: bytes, dispatcher: bare.agent });
        await r.body.dump();
        this.lastForwarded = version;
      }).catch((err: unknown) => { this.problems.push(`forwarding ${version}: ${String(err)}`); });
    }
  }

  flushed(): Promise<void> {
    return this.forwarding;
  }

  close(): void {
    this.req?.destroy();
  }
}

/** The first snapshot event of a stream, exactly as sent (its block and the blank line). */
function firstSnapshot(url: string): Promise<{ bytes: Buffer; version: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (s: string) => {
        buf += s;
        for (const block of buf.split('\n\n').slice(0, -1)) {
          if (block.includes('\nevent: snapshot\n')) {
            req.destroy();
            return resolve({ bytes: Buffer.from(`${block}\n\n`), version: Number(block.slice(4, block.indexOf('\n'))) });
          }
        }
      });
    });
    req.on('error', reject);
  });
}

function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

function openFileLimit(): number {
  const m = /Max open files\s+(\d+|unlimited)/.exec(readFileSync('/proc/self/limits', 'utf8'));
  return !m ? NaN : m[1] === 'unlimited' ? Infinity : Number(m[1]);
}

// ---------------------------------------------------------------------------
// The viewers, in a worker thread.
interface Crowd {
  opened: { failures: Record<string, number>; withSnapshot: number };
  collect(): Promise<ViewerResults>;
  close(): Promise<void>;
}

async function openCrowd(label: string, origin: string, streamPath: string, count: number, batch: number): Promise<Crowd> {
  const worker = new Worker(new URL('./lib/sseViewers.js', import.meta.url), { workerData: { origin, path: streamPath, count, batch } });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const unregister = onCleanup(`close the ${label} viewers`, async () => { worker.postMessage('close'); await Promise.race([exited, sleep(3000)]); await worker.terminate(); });
  let onResults: ((r: ViewerResults) => void) | null = null;
  const t0 = performance.now();
  const opened = await new Promise<Crowd['opened']>((resolve, reject) => {
    worker.on('error', reject);
    worker.on('message', (m: { type: 'progress'; opened: number; failed: number } | ({ type: 'opened' } & Crowd['opened']) | ViewerResults) => {
      if (m.type === 'progress') note(`  [${label}] ${m.opened}/${count} viewers connected (${m.failed} failed), ${fixed((performance.now() - t0) / 1000, 1)} s`);
      else if (m.type === 'opened') resolve({ failures: m.failures, withSnapshot: m.withSnapshot });
      else if (m.type === 'results') onResults?.(m);
    });
  });
  note(`  [${label}] ${opened.withSnapshot}/${count} viewers have their snapshot after ${fixed((performance.now() - t0) / 1000, 1)} s`);
  return {
    opened,
    collect: () => new Promise((resolve) => { onResults = resolve; worker.postMessage('collect'); }),
    close: () => unregister(),
  };
}

// ---------------------------------------------------------------------------
// The hold race: C connections, each its own buyer, 2 random adjacent seats.
interface HoldRun {
  label: string;
  windowStart: number;
  windowEnd: number;
  answered: number;
  held: number;
  conflicts: number;
  errors: Map<string, number>;
  /** CPU seconds in the window: service, bare, bench (viewers + race), machine. */
  cpu: Record<string, number | null>;
}

/** When each seat was answered 201 (epoch ms, ascending per seat). */
const heldAt = new Map<string, number[]>();

async function holdRace(o: {
  label: string; origin: string; showId: string; tokens: string[]; rows: string[]; seatsPerRow: number; seconds: number; warmupSeconds: number;
  meters: Record<string, () => number | null>;
}): Promise<HoldRun> {
  const agent = new Agent({ connections: o.tokens.length, pipelining: 1 });
  const start = now();
  const windowStart = start + o.warmupSeconds * 1000;
  const windowEnd = windowStart + o.seconds * 1000;
  const run: HoldRun = { label: o.label, windowStart, windowEnd, answered: 0, held: 0, conflicts: 0, errors: new Map(), cpu: {} };
  const readMeters = () => Object.fromEntries(Object.entries(o.meters).map(([k, f]) => [k, f()]));
  let cpuStart: Record<string, number | null> = {};
  const cpuTimer = setTimeout(() => { cpuStart = readMeters(); }, o.warmupSeconds * 1000);
  let lastCount = 0;
  let total = 0;
  const progress = setInterval(() => {
    note(`  [${o.label}] ${fixed((now() - start) / 1000, 0).padStart(3)} s: ${total - lastCount} answers/s`);
    lastCount = total;
  }, 1000);
  const url = `${o.origin}/v1/shows/${o.showId}/holds`;
  await Promise.all(o.tokens.map(async (token) => {
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    while (now() < windowEnd) {
      const row = o.rows[(Math.random() * o.rows.length) | 0]!;
      const n = 1 + ((Math.random() * (o.seatsPerRow - 1)) | 0);
      const seats = [`${row}${n}`, `${row}${n + 1}`];
      let status = 0;
      let body = '';
      try {
        const r = await request(url, { method: 'POST', headers, body: JSON.stringify({ seats }), dispatcher: agent });
        status = r.statusCode;
        body = status === 201 ? (await r.body.dump(), '') : await r.body.text();
      } catch (err) {
        status = -1;
        body = (err as NodeJS.ErrnoException).code ?? String(err);
      }
      const t = now();
      total++;
      if (status === 201) for (const s of seats) (heldAt.get(s) ?? heldAt.set(s, []).get(s)!).push(t);
      if (t < windowStart || t > windowEnd) continue;
      run.answered++;
      if (status === 201) run.held++;
      else if (status === 409 && body.includes('SEAT_UNAVAILABLE')) run.conflicts++;
      else {
        const key = status < 0 ? `network ${body}` : `HTTP ${status} ${/"code":"([A-Z_]+)"/.exec(body)?.[1] ?? ''}`.trim();
        run.errors.set(key, (run.errors.get(key) ?? 0) + 1);
      }
    }
  }));
  clearTimeout(cpuTimer);
  clearInterval(progress);
  const cpuEnd = readMeters();
  for (const k of Object.keys(o.meters)) {
    const a = cpuStart[k];
    const b = cpuEnd[k];
    run.cpu[k] = a == null || b == null ? null : b - a;
  }
  await agent.close();
  return run;
}

/** The latest 201 of `seat` answered no later than `at` + slack (a delta may be read before its hold's answer). */
function commitOf(seat: string, at: number): number | null {
  const times = heldAt.get(seat);
  if (!times) return null;
  for (let k = times.length - 1; k >= 0; k--) if (times[k]! <= at + 100) return times[k]!;
  return null;
}

/** Seat changes of deltas whose hold was answered inside the window: version → their commit times. */
function changesInWindow(control: Control, h: HoldRun): { byVersion: Map<number, number[]>; found: number; unmatched: number; answered: number } {
  const byVersion = new Map<number, number[]>();
  let found = 0;
  let unmatched = 0;
  for (const [version, d] of control.deltas) {
    for (const seat of d.held) {
      const t = commitOf(seat, d.at);
      if (t === null) { if (d.at >= h.windowStart && d.at <= h.windowEnd + 1000) unmatched++; continue; }
      if (t < h.windowStart || t > h.windowEnd) continue;
      (byVersion.get(version) ?? byVersion.set(version, []).get(version)!).push(t);
      found++;
    }
  }
  let answered = 0;
  for (const times of heldAt.values()) for (const t of times) if (t >= h.windowStart && t <= h.windowEnd) answered++;
  return { byVersion, found, unmatched, answered };
}

interface StreamFigures {
  commit: Histogram;
  fanout: Histogram;
  delivered: number;
  expected: number;
  viewers: number;
  endedEarly: number;
  gaps: number;
  repeats: number;
  failures: Record<string, number>;
}

/** Per (viewer, change) commit→arrival, per (viewer, delta) reference→arrival, delivered fraction. */
function figures(r: ViewerResults, changes: Map<number, number[]>, reference: (version: number) => number, endVersion: number): StreamFigures {
  const n = r.snapshot.length;
  const commit = new Histogram();
  const fanout = new Histogram();
  for (let k = 0; k < r.versions; k++) {
    const version = r.firstVersion + k;
    const commits = changes.get(version);
    const ref = reference(version);
    for (let i = 0; i < n; i++) {
      const a = r.arrivals[k * n + i]!;
      if (Number.isNaN(a)) continue;
      if (Number.isFinite(ref)) fanout.add(a - ref);
      if (commits) for (const t of commits) commit.add(a - t);
    }
  }
  let delivered = 0;
  let expected = 0;
  let endedEarly = 0;
  let gaps = 0;
  let repeats = 0;
  for (let i = 0; i < n; i++) {
    if (r.snapshot[i]! < 0) continue;
    const want = Math.max(0, endVersion - r.snapshot[i]!);
    expected += want;
    delivered += Math.min(want, r.received[i]!);
    endedEarly += r.ended[i]!;
    gaps += r.gaps[i]!;
    repeats += r.repeats[i]!;
  }
  return { commit, fanout, delivered, expected, viewers: n, endedEarly, gaps, repeats, failures: r.failures };
}

// ---------------------------------------------------------------------------
runBenchmark(async () => {
  const viewers = envNumber('BENCH_VIEWERS', 10_000);
  const seconds = envNumber('BENCH_SECONDS', 15);
  const warmupSeconds = envNumber('BENCH_WARMUP_SECONDS', 2);
  const concurrency = envNumber('BENCH_HOLD_CONCURRENCY', 32);
  const seatCount = envNumber('BENCH_SEATS', 400);
  const batch = envNumber('BENCH_OPEN_BATCH', 500);
  const loadStart = os.loadavg();
  const fdLimit = openFileLimit();
  const fdNeed = viewers + concurrency + 50;
  note(`open file limit ${fdLimit}; this process needs about ${fdNeed} (viewers + hold connections + ~50)`);
  if (fdLimit < fdNeed) throw new Error(`ulimit -n is ${fdLimit}: too low for ${viewers} viewers (needs about ${fdNeed}); raise it or lower BENCH_VIEWERS`);

  const seatsPerRow = seatCount <= 26 * 20 ? 20 : Math.ceil(seatCount / 26);
  const rowCount = Math.ceil(seatCount / seatsPerRow);

  const db = await createBenchDatabase();
  note(`database ${db.name}`);
  const service = await startService({ databaseUrl: db.url });
  note(`service pid ${service.pid} on ${service.baseUrl}`);
  const bare = await startChild({
    name: 'bare-stream', script: path.join(REPO_ROOT, 'dist/bench/lib/bareStream.js'), env: {}, ready: /bare stream listening on (\d+)/,
  });
  note(`bare broadcaster pid ${bare.pid} on ${bare.baseUrl}`);

  const token = await adminToken(service.baseUrl);
  const show = await createShow(service.baseUrl, token, { rows: rowCount, seatsPerRow, hold_ttl_seconds: 1, per_user_limit: 1000 });
  note(`show ${show.showId}: ${rowCount} rows × ${seatsPerRow} seats; registering ${concurrency} buyers…`);
  const buyers = await registerBuyers(service.baseUrl, concurrency);
  await closeApiClient();
  const tokens = buyers.map((b) => b.token);
  const streamPath = `/v1/shows/${show.showId}/seats/stream`;

  const bareAgent = new Agent({ connections: 1, pipelining: 1 });
  onCleanup('close the forwarding client', () => bareAgent.close());
  const control = new Control({ origin: bare.baseUrl, agent: bareAgent });
  await control.open(`${service.baseUrl}${streamPath}`);
  onCleanup('close the control stream', () => control.close());

  const benchCpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
  const meters = {
    service: () => service.cpuSeconds(),
    bare: () => bare.cpuSeconds(),
    bench: benchCpu,
    machine: machineBusySeconds,
  };
  const compact = async () => {
    await adminQuery('vacuum full show_seats', [], db.url);
    await adminQuery('vacuum holds', [], db.url);
  };
  const race = async (label: string) => {
    await compact();
    note(`\n${label}: ${concurrency} connections racing for holds, ${warmupSeconds} s warm-up + ${seconds} s`);
    const r = await holdRace({ label, origin: service.baseUrl, showId: show.showId, tokens, rows: show.rows, seatsPerRow, seconds, warmupSeconds, meters });
    // Holds of 1 s expire through the sweeper (every 500 ms): wait until the stream is quiet.
    await sleep(3000);
    return r;
  };

  // Phase A: no viewers (only the control connection).
  const noViewers1 = await race('no viewers');
  const controlLag = new Histogram();
  {
    const { byVersion } = changesInWindow(control, noViewers1);
    for (const [v, ts] of byVersion) for (const t of ts) controlLag.add(control.deltas.get(v)!.at - t);
  }

  // Phase B: V viewers on the service.
  const serviceRss0 = rssKiB(service.pid);
  note(`\nopening ${viewers} viewers of ${streamPath} on the service, ${batch} at a time (service VmRSS ${fixed(serviceRss0 / 1024, 0)} MiB)`);
  const ours = await openCrowd('boxoffice', service.baseUrl, streamPath, viewers, batch);
  await sleep(2000);
  const serviceRss1 = rssKiB(service.pid);
  note(`service VmRSS ${fixed(serviceRss1 / 1024, 0)} MiB with ${viewers} viewers`);
  const withOurs = await race(`${viewers} viewers on boxoffice`);
  const serviceRss2 = rssKiB(service.pid);
  const ourResults = await ours.collect();
  const ourEnd = control.last;
  await ours.close();

  // Phase C: V viewers on the bare broadcaster, fed the same deltas.
  await sleep(1000);
  const snap = await firstSnapshot(`${service.baseUrl}${streamPath}`);
  if (snap.version !== control.last) note(`warning: the fresh snapshot is version ${snap.version}, the control stream is at ${control.last}`);
  await request(`${bare.baseUrl}/snapshot`, { method: 'POST', body: snap.bytes, dispatcher: bareAgent }).then((r) => r.body.dump());
  control.forwardAbove = snap.version;
  const bareRss0 = rssKiB(bare.pid);
  note(`\nopening ${viewers} viewers on the bare broadcaster (VmRSS ${fixed(bareRss0 / 1024, 0)} MiB); it starts them with the service's snapshot ${snap.version} (${snap.bytes.length} bytes)`);
  const theirs = await openCrowd('bare', bare.baseUrl, '/stream', viewers, batch);
  await sleep(2000);
  const bareRss1 = rssKiB(bare.pid);
  const withBare = await race(`${viewers} viewers on the bare broadcaster`);
  await control.flushed();
  const bareRss2 = rssKiB(bare.pid);
  const bareResults = await theirs.collect();
  const bareEnd = control.lastForwarded;
  await theirs.close();
  control.forwardAbove = null;

  // Phase A again: drift (dead rows, other work on the machine) falls on both sides.
  await sleep(1000);
  const noViewers2 = await race('no viewers, again');
  const loadEnd = os.loadavg();

  // ---- figures
  const oursChanges = changesInWindow(control, withOurs);
  const bareChanges = changesInWindow(control, withBare);
  const o = figures(ourResults, oursChanges.byVersion, (v) => control.deltas.get(v)?.at ?? NaN, ourEnd);
  const b = figures(bareResults, bareChanges.byVersion, (v) => control.deltas.get(v)?.sentAt ?? NaN, bareEnd);
  const rate = (h: HoldRun) => h.answered / seconds;
  const heldRate = (h: HoldRun) => h.held / seconds;
  const baseRate = (rate(noViewers1) + rate(noViewers2)) / 2;
  const baseHeld = (heldRate(noViewers1) + heldRate(noViewers2)) / 2;
  const kib = (k: number) => fixed(k, 1);
  const ourPerConn = ((serviceRss1 - serviceRss0) * 1024) / viewers / 1024;
  const barePerConn = ((bareRss1 - bareRss0) * 1024) / viewers / 1024;
  const deltasPerSecond = (h: HoldRun) => [...control.deltas.values()].filter((d) => d.at >= h.windowStart && d.at <= h.windowEnd).length / seconds;

  say('');
  say(`== bench:stream — ${viewers} viewers of one ${rowCount * seatsPerRow}-seat show's GET /v1/shows/{id}/seats/stream on one instance, while ${concurrency} connections race for holds`);
  say(`   (2 random adjacent seats, hold_ttl_seconds 1, expiries through the sweeper); ${seconds} s measured per phase after ${warmupSeconds} s warm-up;`);
  say(`   ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}); node ${process.version}; service, PostgreSQL, bare broadcaster and the bench (viewers in one worker thread) share them;`);
  say(`   load average ${loadStart.map((x) => fixed(x, 1)).join(' ')} at start, ${loadEnd.map((x) => fixed(x, 1)).join(' ')} at end (other work on this machine shows up here); open file limit ${fdLimit}`);
  say('   bare: node:http, one Set of responses, each delta forwarded byte for byte by the bench (from a control connection to the service) and written to every viewer');
  say('');
  const cell = (h: Histogram, q: number) => fixed(h.at(q), 1);
  const ratio = (x: number, y: number) => fixed(x / y, 2);
  say(table(['', 'boxoffice', 'bare node:http', 'ours / bare'], [
    ['commit→delivery p50 ms', cell(o.commit, 0.5), cell(b.commit, 0.5), ratio(o.commit.at(0.5), b.commit.at(0.5))],
    ['commit→delivery p99 ms', cell(o.commit, 0.99), cell(b.commit, 0.99), ratio(o.commit.at(0.99), b.commit.at(0.99))],
    ['commit→delivery max ms', cell(o.commit, 1), cell(b.commit, 1), ''],
    ['  (viewer, seat change) samples', String(o.commit.count), String(b.commit.count), ''],
    ['fan-out p50 ms', cell(o.fanout, 0.5), cell(b.fanout, 0.5), ratio(o.fanout.at(0.5), b.fanout.at(0.5))],
    ['fan-out p99 ms', cell(o.fanout, 0.99), cell(b.fanout, 0.99), ratio(o.fanout.at(0.99), b.fanout.at(0.99))],
    ['  (viewer, delta) samples', String(o.fanout.count), String(b.fanout.count), ''],
    ['delivered fraction', fixed(o.delivered / o.expected, 5), fixed(b.delivered / b.expected, 5), ''],
    ['  deltas received / expected', `${o.delivered}/${o.expected}`, `${b.delivered}/${b.expected}`, ''],
    ['  streams ended early, gaps, repeats', `${o.endedEarly}, ${o.gaps}, ${o.repeats}`, `${b.endedEarly}, ${b.gaps}, ${b.repeats}`, ''],
    ['memory per connection KiB (VmRSS Δ / V)', kib(ourPerConn), kib(barePerConn), ratio(ourPerConn, barePerConn)],
    ['  VmRSS MiB: before, viewers on, after race', [serviceRss0, serviceRss1, serviceRss2].map((k) => fixed(k / 1024, 0)).join(', '), [bareRss0, bareRss1, bareRss2].map((k) => fixed(k / 1024, 0)).join(', '), ''],
    ['hold answers/s with viewers', fixed(rate(withOurs), 0), fixed(rate(withBare), 0), ratio(rate(withOurs), rate(withBare))],
    ['  vs without viewers', ratio(rate(withOurs), baseRate), ratio(rate(withBare), baseRate), ''],
    ['holds answered 201/s with viewers', fixed(heldRate(withOurs), 0), fixed(heldRate(withBare), 0), ''],
    ['deltas/s on the stream', fixed(deltasPerSecond(withOurs), 1), fixed(deltasPerSecond(withBare), 1), ''],
  ]));
  say('');
  say(`hold race without viewers: ${fixed(rate(noViewers1), 0)} and ${fixed(rate(noViewers2), 0)} answers/s (before, after), mean ${fixed(baseRate, 0)}; 201s ${fixed(baseHeld, 0)}/s; ` +
    `commit→control connection p50 ${cell(controlLag, 0.5)} ms, p99 ${cell(controlLag, 0.99)} ms (the feed alone: publisher every FEED_INTERVAL_MS 100, read, one viewer)`);
  const p99 = o.commit.at(0.99);
  say(`goal: commit→delivery p99 < ${GOAL_P99_MS} ms with ${viewers} viewers: ${p99 < GOAL_P99_MS ? 'met' : 'MISSED'} (${fixed(p99, 1)} ms)`);
  say('');
  say('definitions: commit = the bench got the hold\'s 201 (the commit came just before); delivery = a viewer\'s socket delivered the delta naming the seat held;');
  say('  fan-out = from the control connection\'s arrival (ours: it joined first, so it is written first) or the bench\'s forward (bare) to each viewer\'s arrival;');
  say('  bare commit→delivery = our feed to the control connection + the forward + the bare fan-out; delivered = deltas in order from each viewer\'s snapshot to the last version.');
  say(`seat changes answered 201 in the windows / found held in a delta: boxoffice ${oursChanges.answered}/${oursChanges.found}, bare ${bareChanges.answered}/${bareChanges.found}; held changes with no 201 to match: ${oursChanges.unmatched}, ${bareChanges.unmatched}`);
  say(`negative samples (delta read before its hold's answer, counted as 0): ${o.commit.negative}, ${b.commit.negative}`);
  say('');
  const cpuRow = (name: string, h: HoldRun) => {
    const pct = (k: string) => (h.cpu[k] == null ? '-' : `${fixed((100 * h.cpu[k]!) / seconds, 0)}%`);
    return [name, fixed(rate(h), 0), pct('service'), pct('bare'), pct('bench'), h.cpu.machine == null ? '-' : `${fixed((100 * h.cpu.machine) / (seconds * os.cpus().length), 0)}%`];
  };
  say('CPU in the measured windows (% of one core; machine busy = all cores):');
  say(table(['phase', 'answers/s', 'service', 'bare', 'bench (race + viewers)', 'machine busy'], [
    cpuRow('no viewers', noViewers1),
    cpuRow(`${viewers} viewers on boxoffice`, withOurs),
    cpuRow(`${viewers} viewers on bare`, withBare),
    cpuRow('no viewers, again', noViewers2),
  ]));
  for (const [name, h] of [['no viewers', noViewers1], ['boxoffice', withOurs], ['bare', withBare], ['no viewers again', noViewers2]] as const) {
    if (h.errors.size) say(`hold errors (${name}): ${[...h.errors].map(([k, n]) => `${n} × ${k}`).join(', ')}`);
  }
  for (const [name, f] of [['boxoffice', o], ['bare', b]] as const) {
    if (Object.keys(f.failures).length) say(`viewers that failed to connect (${name}): ${Object.entries(f.failures).map(([k, n]) => `${n} × ${k}`).join(', ')}`);
  }
  if (control.problems.length) say(`control stream problems: ${control.problems.slice(0, 5).join('; ')}${control.problems.length > 5 ? ` (${control.problems.length} in all)` : ''}`);
  if (service.logs.count) {
    say(`the service printed ${service.logs.count} lines after it was ready (LOG_LEVEL=warn); the last ones:`);
    for (const l of service.logs.last.slice(-5)) say(`  ${l.slice(0, 300)}`);
  }
});
