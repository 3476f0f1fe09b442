// Benchmark: the live seat map stream under a crowd. V viewers (default 10,000)
// follow one show's GET /v1/shows/{id}/seats/stream on one service instance while
// buyers race for its seats (2 random adjacent seats, hold_ttl_seconds 1, so seats
// keep expiring back through the sweeper and the race never ends). Measured:
//   - commit-to-delivery per (viewer, seat change): from the hold's write (its
//     claim transaction's start, holds.created_at: PostgreSQL's clock, the same
//     machine's) to the moment a viewer got the delta naming that seat as held;
//     and the same from the moment the hold's 201 reached the bench;
//   - the fan-out alone: from the first viewer's arrival (a control connection that
//     joined before the crowd) to each viewer's, per (viewer, delta);
//   - delivered fraction: deltas received in order / versions from each viewer's
//     snapshot to the last one published;
//   - memory per connection: the server's VmRSS before and after opening its first crowd;
//   - hold throughput without viewers (before and after) and with them.
// Beside it, in the same run, a bare node:http SSE broadcaster (bench/lib/bareStream.ts)
// that the same number of viewers follow while the same hold race runs: the bench
// forwards every delta the control connection receives, byte for byte, to it.
// Viewers live in worker threads of this process (BENCH_VIEWER_THREADS, default 2; one socket each, a byte scanner
// that never parses JSON), so this process needs V + C + ~50 file descriptors.
//
//   npm run bench:stream           BENCH_VIEWERS=10000 BENCH_SECONDS=15 BENCH_WARMUP_SECONDS=2
//   BENCH_HOLD_CONCURRENCY=32      connections racing for holds (one buyer each)
//   BENCH_SEATS=400                seats of the show (rows of 20)
//   BENCH_OPEN_BATCH=500           viewers connecting at a time
//   BENCH_ROUNDS=2                 slices per target (none, boxoffice, bare), taken in ABBA order
//   BENCH_VIEWER_THREADS=2         worker threads the viewers are spread over
//   BENCH_CPU_PROF=1               profile the service and the bare broadcaster into .bench-out/prof
import os from 'node:os';
import http from 'node:http';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { runBenchmark, onCleanup } from './lib/cleanup.js';
import { writeSummary } from './lib/summary.js';
import { adminQuery, createBenchDatabase } from './lib/db.js';
import { REPO_ROOT, machineBusySeconds, profileFlags, startChild, startService } from './lib/child.js';
import { adminToken, closeApiClient, createShow, registerBuyers } from './lib/api.js';
import type { ViewerResults } from './lib/sseViewers.js';
import { openCrowd } from './lib/viewerCrowd.js';
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
interface DeltaSeen { at: number; held: string[]; sentAt: number; bytes: number }

class Control {
  snapshotVersion = -1;
  last = -1;
  readonly deltas = new Map<number, DeltaSeen>();
  readonly problems: string[] = [];
  ended = false;
  /** Forward deltas above this version to the bare broadcaster (null: do not). */
  forwardAbove: number | null = null;
  lastForwarded = -1;
  private feed: http.ClientRequest | null = null;
  private req: http.ClientRequest | null = null;

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
    const seen: DeltaSeen = { at, held: data.changes.filter((c) => c.status === 'held').map((c) => c.seat), sentAt: NaN, bytes: Buffer.byteLength(block) + 2 };
    this.deltas.set(version, seen);
    if (this.feed && this.forwardAbove !== null && version > this.forwardAbove) {
      seen.sentAt = now();
      this.feed.write(`${block}\n\n`);
      this.lastForwarded = version;
    }
  }

  /** Starts forwarding to the bare broadcaster over one long POST (no round trip per delta). */
  startForwarding(bareOrigin: string, above: number): void {
    this.forwardAbove = above;
    const req = http.request(`${bareOrigin}/feed`, { method: 'POST', agent: false, headers: { 'content-type': 'text/event-stream' } });
    req.on('error', (err) => this.problems.push(`forwarding: ${String(err)}`));
    req.flushHeaders();
    this.feed = req;
  }

  stopForwarding(): void {
    this.feed?.end();
    this.feed = null;
    this.forwardAbove = null;
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

/** The service's /metrics as name → value (labels summed). */
async function scrape(origin: string): Promise<Map<string, number>> {
  const r = await request(`${origin}/metrics`);
  const text = await r.body.text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)(\{[^}]*\})? ([-0-9.e+]+)$/.exec(line);
    if (m) out.set(m[1]!, (out.get(m[1]!) ?? 0) + Number(m[3]));
  }
  return out;
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
// The viewers: bench/lib/viewerCrowd.ts (openCrowd).

// ---------------------------------------------------------------------------
// The hold race: C connections, each its own buyer, 2 random adjacent seats.
interface HoldRun {
  label: string;
  seconds: number;
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
  const run: HoldRun = { label: o.label, seconds: o.seconds, windowStart, windowEnd, answered: 0, held: 0, conflicts: 0, errors: new Map(), cpu: {} };
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

/** When each seat was held, by the holds' created_at (the claim transaction's start), from the database. */
async function heldInDatabase(url: string, showId: string, from: number, to: number): Promise<Map<string, number[]>> {
  const rows = await adminQuery<{ seats: string[]; at: number }>(
    `select seats, extract(epoch from created_at) * 1000 as at from holds
      where show_id = $1 and created_at between to_timestamp($2::float8 / 1000) and to_timestamp($3::float8 / 1000) order by created_at`,
    [showId, from, to], url);
  const bySeat = new Map<string, number[]>();
  for (const r of rows) for (const s of r.seats) (bySeat.get(s) ?? bySeat.set(s, []).get(s)!).push(Number(r.at));
  return bySeat;
}

/** The latest time in `times` no later than `at` + slack. */
function latest(times: number[] | undefined, at: number, slack: number): number | null {
  if (!times) return null;
  for (let k = times.length - 1; k >= 0; k--) if (times[k]! <= at + slack) return times[k]!;
  return null;
}

interface WindowChanges {
  /** version → write times (holds.created_at) of the seats it shows held, for holds written in the window. */
  written: Map<number, number[]>;
  /** version → the bench's 201 times of those seats. */
  answered: Map<number, number[]>;
  /** Seats answered 201 in the window; of them found held in a delta; held seats of deltas with no 201 to match. */
  answeredCount: number;
  found: number;
  unmatched: number;
}

/**
 * The seat changes of a window, matched to their holds. A seat can be held again
 * only after its 1 s hold expired, so the latest hold of the seat before the delta
 * came is its hold (a delta may be read just before its hold's 201: 100 ms slack).
 */
async function changesInWindow(control: Control, h: HoldRun, dbUrl: string, showId: string): Promise<WindowChanges> {
  const db = await heldInDatabase(dbUrl, showId, h.windowStart - 3000, h.windowEnd + 3000);
  const out: WindowChanges = { written: new Map(), answered: new Map(), answeredCount: 0, found: 0, unmatched: 0 };
  const push = (m: Map<number, number[]>, v: number, t: number) => (m.get(v) ?? m.set(v, []).get(v)!).push(t);
  for (const [version, d] of control.deltas) {
    if (d.at < h.windowStart || d.at > h.windowEnd + 3000) continue;
    for (const seat of d.held) {
      const t = latest(heldAt.get(seat), d.at, 100);
      if (t === null) { out.unmatched++; continue; }
      if (t < h.windowStart || t > h.windowEnd) continue;
      push(out.answered, version, t);
      out.found++;
      const w = latest(db.get(seat), d.at, 0);
      if (w !== null) push(out.written, version, w);
    }
  }
  for (const times of heldAt.values()) for (const t of times) if (t >= h.windowStart && t <= h.windowEnd) out.answeredCount++;
  return out;
}

/** Per (viewer, change) commit→arrival, per (viewer, delta) reference→arrival, delivered fraction; summed over slices. */
class StreamTally {
  /** From the claim transaction's start (holds.created_at). */
  readonly commit = new Histogram();
  /** From the bench's receipt of the 201. */
  readonly answer = new Histogram();
  readonly fanout = new Histogram();
  delivered = 0;
  expected = 0;
  endedEarly = 0;
  gaps = 0;
  repeats = 0;
  readonly failures: Record<string, number> = {};
  readonly loopDelays: { p50: number; p99: number; max: number }[] = [];

  add(r: ViewerResults, c: WindowChanges, reference: (version: number) => number, endVersion: number): void {
    const n = r.snapshot.length;
    for (let k = 0; k < r.versions; k++) {
      const version = r.firstVersion + k;
      const commits = c.written.get(version);
      const answers = c.answered.get(version);
      const ref = reference(version);
      for (let i = 0; i < n; i++) {
        const a = r.arrivals[k * n + i]!;
        if (Number.isNaN(a)) continue;
        if (Number.isFinite(ref)) this.fanout.add(a - ref);
        if (commits) for (const t of commits) this.commit.add(a - t);
        if (answers) for (const t of answers) this.answer.add(a - t);
      }
    }
    for (let i = 0; i < n; i++) {
      if (r.snapshot[i]! < 0) continue;
      const want = Math.max(0, endVersion - r.snapshot[i]!);
      this.expected += want;
      this.delivered += Math.min(want, r.received[i]!);
      this.endedEarly += r.ended[i]!;
      this.gaps += r.gaps[i]!;
      this.repeats += r.repeats[i]!;
    }
    for (const [k, v] of Object.entries(r.failures)) this.failures[k] = (this.failures[k] ?? 0) + v;
    this.loopDelays.push(r.loopDelay);
  }
}

// ---------------------------------------------------------------------------
runBenchmark(async () => {
  const viewers = envNumber('BENCH_VIEWERS', 10_000);
  const seconds = envNumber('BENCH_SECONDS', 15);
  const warmupSeconds = envNumber('BENCH_WARMUP_SECONDS', 2);
  const concurrency = envNumber('BENCH_HOLD_CONCURRENCY', 32);
  const seatCount = envNumber('BENCH_SEATS', 400);
  const batch = envNumber('BENCH_OPEN_BATCH', 500);
  const rounds = envNumber('BENCH_ROUNDS', 2);
  const viewerThreads = envNumber('BENCH_VIEWER_THREADS', 2);
  const loadStart = os.loadavg();
  const fdLimit = openFileLimit();
  const fdNeed = viewers + concurrency + 50;
  note(`open file limit ${fdLimit}; this process needs about ${fdNeed} (viewers + hold connections + ~50)`);
  if (fdLimit < fdNeed) throw new Error(`ulimit -n is ${fdLimit}: too low for ${viewers} viewers (needs about ${fdNeed}); raise it or lower BENCH_VIEWERS`);

  const seatsPerRow = seatCount <= 26 * 20 ? 20 : Math.ceil(seatCount / 26);
  const rowCount = Math.ceil(seatCount / seatsPerRow);

  const db = await createBenchDatabase();
  note(`database ${db.name}`);
  const service = await startService({ databaseUrl: db.url, nodeFlags: profileFlags('boxoffice-stream') });
  note(`service pid ${service.pid} on ${service.baseUrl}`);
  const bare = await startChild({
    name: 'bare-stream', script: path.join(REPO_ROOT, 'dist/bench/lib/bareStream.js'), env: {}, ready: /bare stream listening on (\d+)/, nodeFlags: profileFlags('bare-stream'),
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
  const control = new Control();
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
  const race = async (label: string, s: number) => {
    await compact();
    note(`\n${label}: ${concurrency} connections racing for holds, ${warmupSeconds} s warm-up + ${fixed(s, 1)} s`);
    const r = await holdRace({ label, origin: service.baseUrl, showId: show.showId, tokens, rows: show.rows, seatsPerRow, seconds: s, warmupSeconds, meters });
    // Holds of 1 s expire through the sweeper (every 500 ms): wait until the stream is quiet.
    await sleep(3000);
    return r;
  };

  // ABBA slices: none, ours, bare, then bare, ours, none, so drift and other work fall on every target alike.
  type Target = 'none' | 'ours' | 'bare';
  const races: Record<Target, HoldRun[]> = { none: [], ours: [], bare: [] };
  const tally: Record<'ours' | 'bare', StreamTally> = { ours: new StreamTally(), bare: new StreamTally() };
  const rss: Record<'ours' | 'bare', [number, number, number][]> = { ours: [], bare: [] };
  const controlLag = new Histogram();
  const forwardLag = new Histogram();
  const changeCounts = { ours: { answered: 0, found: 0, unmatched: 0 }, bare: { answered: 0, found: 0, unmatched: 0 } };
  const bareProblems: string[] = [];
  const settles: Record<'ours' | 'bare', { behind: number; ms: number }[]> = { ours: [], bare: [] };
  const metrics: Map<string, number>[] = [];
  const slice = seconds / rounds;
  const order: Target[] = [];
  for (let r = 0; r < rounds; r++) order.push(...(r % 2 === 0 ? (['none', 'ours', 'bare'] as const) : (['bare', 'ours', 'none'] as const)));
  let step = 0;
  for (const target of order) {
    step++;
    const label = `${step}/${order.length} ${target === 'none' ? 'no viewers' : `${viewers} viewers on ${target === 'ours' ? 'boxoffice' : 'the bare broadcaster'}`}`;
    if (target === 'none') {
      const h = await race(label, slice);
      races.none.push(h);
      const c = await changesInWindow(control, h, db.url, show.showId);
      for (const [v, ts] of c.written) for (const t of ts) controlLag.add(control.deltas.get(v)!.at - t);
      continue;
    }
    if (target === 'ours') {
      metrics.push(await scrape(service.baseUrl));
      const rss0 = rssKiB(service.pid);
      note(`\n${label}: opening the viewers of ${streamPath}, ${batch} at a time (service VmRSS ${fixed(rss0 / 1024, 0)} MiB)`);
      const crowd = await openCrowd('boxoffice', service.baseUrl, streamPath, viewers, batch, viewerThreads);
      await sleep(2000);
      const rss1 = rssKiB(service.pid);
      metrics.push(await scrape(service.baseUrl));
      note(`  service VmRSS ${fixed(rss1 / 1024, 0)} MiB with ${viewers} viewers`);
      const h = await race(label, slice);
      const rss2 = rssKiB(service.pid);
      metrics.push(await scrape(service.baseUrl));
      const settled = await crowd.settle(control.last, 20_000);
      settles.ours.push(settled);
      const results = await crowd.collect();
      await crowd.close();
      const c = await changesInWindow(control, h, db.url, show.showId);
      tally.ours.add(results, c, (v) => control.deltas.get(v)?.at ?? NaN, control.last);
      races.ours.push(h);
      rss.ours.push([rss0, rss1, rss2]);
      changeCounts.ours.answered += c.answeredCount; changeCounts.ours.found += c.found; changeCounts.ours.unmatched += c.unmatched;
      await sleep(1000);
      continue;
    }
    // The bare broadcaster starts its viewers with the service's current snapshot and gets every delta after it.
    const snap = await firstSnapshot(`${service.baseUrl}${streamPath}`);
    if (snap.version !== control.last) note(`warning: the fresh snapshot is version ${snap.version}, the control stream is at ${control.last}`);
    await request(`${bare.baseUrl}/snapshot`, { method: 'POST', body: snap.bytes, dispatcher: bareAgent }).then((r) => r.body.dump());
    control.startForwarding(bare.baseUrl, snap.version);
    const bareControl = new Control();
    await bareControl.open(`${bare.baseUrl}/stream`);
    const rss0 = rssKiB(bare.pid);
    note(`\n${label}: opening the viewers, ${batch} at a time (bare VmRSS ${fixed(rss0 / 1024, 0)} MiB); they start with the service's snapshot ${snap.version} (${snap.bytes.length} bytes)`);
    const crowd = await openCrowd('bare', bare.baseUrl, '/stream', viewers, batch, viewerThreads);
    await sleep(2000);
    const rss1 = rssKiB(bare.pid);
    const h = await race(label, slice);
    const rss2 = rssKiB(bare.pid);
    const end = control.lastForwarded;
    const settled = await crowd.settle(end, 20_000);
    settles.bare.push(settled);
    const results = await crowd.collect();
    await crowd.close();
    control.stopForwarding();
    bareControl.close();
    const c = await changesInWindow(control, h, db.url, show.showId);
    tally.bare.add(results, c, (v) => bareControl.deltas.get(v)?.at ?? NaN, end);
    for (const [v, d] of bareControl.deltas) { const sent = control.deltas.get(v)?.sentAt; if (sent !== undefined) forwardLag.add(d.at - sent); }
    bareProblems.push(...bareControl.problems);
    races.bare.push(h);
    rss.bare.push([rss0, rss1, rss2]);
    changeCounts.bare.answered += c.answeredCount; changeCounts.bare.found += c.found; changeCounts.bare.unmatched += c.unmatched;
    await sleep(1000);
  }
  const loadEnd = os.loadavg();

  // ---- the report
  const total = (hs: HoldRun[], f: (h: HoldRun) => number) => hs.reduce((acc, h) => acc + f(h), 0) / hs.reduce((acc, h) => acc + h.seconds, 0);
  const rate = (t: Target) => total(races[t], (h) => h.answered);
  const heldRate = (t: Target) => total(races[t], (h) => h.held);
  const inWindows = (t: Target) => [...control.deltas.values()].filter((d) => races[t].some((h) => d.at >= h.windowStart && d.at <= h.windowEnd));
  const deltaRate = (t: Target) => inWindows(t).length / races[t].reduce((acc, h) => acc + h.seconds, 0);
  const deltaBytes = (t: Target) => inWindows(t).reduce((acc, d) => acc + d.bytes, 0) / Math.max(1, inWindows(t).length);
  // From each server's first crowd only: after a crowd leaves, RSS stays high until a GC, so a later Δ says little.
  const perConn = (t: 'ours' | 'bare') => (rss[t][0] ? (rss[t][0][1] - rss[t][0][0]) / viewers : NaN);
  const o = tally.ours;
  const b = tally.bare;
  const cell = (h: Histogram, q: number) => fixed(h.at(q), 1);
  const ratio = (x: number, y: number) => fixed(x / y, 2);
  const rssCell = (t: 'ours' | 'bare') => rss[t].map((r) => r.map((k) => fixed(k / 1024, 0)).join('/')).join('; ');

  // CPU for delivering: the bare process's all of it; the service's beyond what its hold answers cost without viewers.
  const cpuOf = (hs: HoldRun[], k: string) => hs.reduce((acc, h) => acc + (h.cpu[k] ?? NaN), 0);
  const answersOf = (hs: HoldRun[]) => hs.reduce((acc, h) => acc + h.answered, 0);
  const servicePerAnswer = cpuOf(races.none, 'service') / answersOf(races.none);
  const ourCpuPerDelivery = ((cpuOf(races.ours, 'service') - servicePerAnswer * answersOf(races.ours)) * 1e6) / o.fanout.count;
  const bareCpuPerDelivery = (cpuOf(races.bare, 'bare') * 1e6) / b.fanout.count;

  say('');
  say(`== bench:stream — ${viewers} viewers of one ${rowCount * seatsPerRow}-seat show's GET /v1/shows/{id}/seats/stream on one instance, while ${concurrency} connections race for holds`);
  say(`   (2 random adjacent seats, hold_ttl_seconds 1, expiries through the sweeper); ${seconds} s measured per target in ${rounds} slice(s) of ${fixed(slice, 1)} s, ABBA order`);
  say(`   (${order.join(', ')}), each after ${warmupSeconds} s warm-up; the viewers connect (and get their snapshot) before each slice's race and leave after it;`);
  say(`   ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}); node ${process.version}; service, PostgreSQL, bare broadcaster and the bench (viewers in ${viewerThreads} worker threads) share them;`);
  say(`   load average ${loadStart.map((x) => fixed(x, 1)).join(' ')} at start, ${loadEnd.map((x) => fixed(x, 1)).join(' ')} at end (other work on this machine shows up here); open file limit ${fdLimit}`);
  say('   bare: node:http, a Set of responses; the bench forwards every delta its control connection to the service gets, byte for byte, over one long POST, and it writes each to every viewer');
  say('');
  say(table(['', 'boxoffice', 'bare node:http', 'ours / bare'], [
    ['commit→delivery p50 ms', cell(o.commit, 0.5), cell(b.commit, 0.5), ratio(o.commit.at(0.5), b.commit.at(0.5))],
    ['commit→delivery p99 ms', cell(o.commit, 0.99), cell(b.commit, 0.99), ratio(o.commit.at(0.99), b.commit.at(0.99))],
    ['commit→delivery max ms', cell(o.commit, 1), cell(b.commit, 1), ''],
    ['  (viewer, seat change) samples', String(o.commit.count), String(b.commit.count), ''],
    ['201 answer→delivery p50 ms', cell(o.answer, 0.5), cell(b.answer, 0.5), ratio(o.answer.at(0.5), b.answer.at(0.5))],
    ['201 answer→delivery p99 ms', cell(o.answer, 0.99), cell(b.answer, 0.99), ratio(o.answer.at(0.99), b.answer.at(0.99))],
    ['fan-out p50 ms', cell(o.fanout, 0.5), cell(b.fanout, 0.5), ratio(o.fanout.at(0.5), b.fanout.at(0.5))],
    ['fan-out p99 ms', cell(o.fanout, 0.99), cell(b.fanout, 0.99), ratio(o.fanout.at(0.99), b.fanout.at(0.99))],
    ['  (viewer, delta) samples', String(o.fanout.count), String(b.fanout.count), ''],
    ['delivered fraction', fixed(o.delivered / o.expected, 5), fixed(b.delivered / b.expected, 5), ''],
    ['  deltas received / expected', `${o.delivered}/${o.expected}`, `${b.delivered}/${b.expected}`, ''],
    ['  streams ended early, gaps, repeats', `${o.endedEarly}, ${o.gaps}, ${o.repeats}`, `${b.endedEarly}, ${b.gaps}, ${b.repeats}`, ''],
    ['memory per connection KiB (VmRSS Δ / V, 1st crowd)', fixed(perConn('ours'), 1), fixed(perConn('bare'), 1), ratio(perConn('ours'), perConn('bare'))],
    ['  VmRSS MiB before/with viewers/after race', rssCell('ours'), rssCell('bare'), ''],
    ['CPU µs per (viewer, delta) sent', fixed(ourCpuPerDelivery, 2), fixed(bareCpuPerDelivery, 2), ratio(ourCpuPerDelivery, bareCpuPerDelivery)],
    ['hold answers/s with viewers', fixed(rate('ours'), 0), fixed(rate('bare'), 0), ratio(rate('ours'), rate('bare'))],
    ['  vs without viewers', ratio(rate('ours'), rate('none')), ratio(rate('bare'), rate('none')), ''],
    ['holds answered 201/s', fixed(heldRate('ours'), 0), fixed(heldRate('bare'), 0), ''],
    ['deltas/s on the stream', fixed(deltaRate('ours'), 1), fixed(deltaRate('bare'), 1), ''],
    ['  mean delta event bytes', fixed(deltaBytes('ours'), 0), fixed(deltaBytes('bare'), 0), ''],
  ]));
  say('');
  say(`hold race without viewers: ${races.none.map((h) => fixed(h.answered / h.seconds, 0)).join(' and ')} answers/s (first, last slice), ${fixed(rate('none'), 0)} overall; 201s ${fixed(heldRate('none'), 0)}/s; ` +
    `commit→control connection p50 ${cell(controlLag, 0.5)} ms, p99 ${cell(controlLag, 0.99)} ms (the feed alone: publisher every FEED_INTERVAL_MS 100, read, one viewer)`);
  const p99 = o.commit.at(0.99);
  say(`goal: commit→delivery p99 < ${GOAL_P99_MS} ms with ${viewers} viewers: ${p99 < GOAL_P99_MS ? 'met' : 'MISSED'} (${fixed(p99, 1)} ms)`);
  say('');
  say('definitions: commit = the claim transaction\'s start (holds.created_at, PostgreSQL\'s clock; the commit is a few ms later, so this errs long);');
  say('  201 answer = when the bench\'s main thread read the hold\'s 201 (errs short when that thread lags); delivery = a viewer\'s socket delivered the delta naming the seat held;');
  say('  fan-out = from a control connection\'s arrival (one on each server, in the bench\'s main thread, joined before the crowd so written to first) to each viewer\'s arrival;');
  say('  bare commit→delivery = our feed to the control connection + the forward + the bare fan-out; delivered = deltas in order from each viewer\'s snapshot to the last version.');
  say('  CPU per (viewer, delta): the bare process\'s CPU in its windows; the service\'s minus its answers × its CPU per answer in the no-viewer slices (≈).');
  say(`seat changes answered 201 in the windows / found held in a delta: boxoffice ${changeCounts.ours.answered}/${changeCounts.ours.found}, bare ${changeCounts.bare.answered}/${changeCounts.bare.found}; held changes with no 201 to match: ${changeCounts.ours.unmatched}, ${changeCounts.bare.unmatched}`);
  say(`after each race and 3 s of quiet, every viewer had the last delta within: boxoffice ${settles.ours.map((x) => `${x.ms} ms${x.behind ? ` (${x.behind} still behind at the 20 s limit)` : ''}`).join(', ')}; bare ${settles.bare.map((x) => `${x.ms} ms${x.behind ? ` (${x.behind} still behind at the 20 s limit)` : ''}`).join(', ')}`);
  const delays = (t: StreamTally) => t.loopDelays.map((d) => `p50 ${fixed(d.p50, 0)}, p99 ${fixed(d.p99, 0)}, max ${fixed(d.max, 0)} ms`).join('; ');
  say(`the viewers' threads' event loop delay, the slowest thread's (how late it may have read; counted in every delivery): boxoffice slices ${delays(o)}; bare slices ${delays(b)}`);
  say(`bench forward → bare control connection: p50 ${cell(forwardLag, 0.5)} ms, p99 ${cell(forwardLag, 0.99)} ms (${forwardLag.count} deltas); bare control problems: ${bareProblems.length ? bareProblems.slice(0, 3).join('; ') : 'none'}`);
  const m = (i: number, k: string) => metrics[i]?.get(k) ?? 0;
  const heap = 'boxoffice_nodejs_heap_size_used_bytes';
  const heapDelta = metrics.length >= 2 ? (m(1, heap) - m(0, heap)) / 1024 / viewers : NaN;
  say(`service metrics (first boxoffice slice): viewers ${m(0, 'boxoffice_seat_stream_viewers')} → ${m(1, 'boxoffice_seat_stream_viewers')} → ${m(2, 'boxoffice_seat_stream_viewers')} (before, viewers on, after race);` +
    ` dropped ${m(metrics.length - 1, 'boxoffice_seat_stream_dropped_total')} (whole run); deltas sent ${m(2, 'boxoffice_seat_stream_deltas_sent_total') - m(1, 'boxoffice_seat_stream_deltas_sent_total')} in the race;` +
    ` V8 heap used ${fixed(m(0, heap) / 2 ** 20, 0)} → ${fixed(m(1, heap) / 2 ** 20, 0)} MiB (${fixed(heapDelta, 1)} KiB per viewer, no forced GC)`);
  say(`negative samples, counted as 0 (commit: clock trouble; 201: the viewer read the delta before the bench read the 201): commit ${o.commit.negative}, ${b.commit.negative}; 201 ${o.answer.negative}, ${b.answer.negative}`);
  say(`clocks: performance.timeOrigin + now() − Date.now() = ${fixed(now() - Date.now(), 1)} ms in the main thread`);
  say('');
  const cpuRow = (h: HoldRun) => {
    const pct = (k: string) => (h.cpu[k] == null ? '-' : `${fixed((100 * h.cpu[k]!) / h.seconds, 0)}%`);
    return [h.label, fixed(h.answered / h.seconds, 0), pct('service'), pct('bare'), pct('bench'), h.cpu.machine == null ? '-' : `${fixed((100 * h.cpu.machine) / (h.seconds * os.cpus().length), 0)}%`];
  };
  const all = [...races.none, ...races.ours, ...races.bare].sort((x, y) => x.windowStart - y.windowStart);
  say('CPU in the measured windows (% of one core; machine busy = all cores):');
  say(table(['slice', 'answers/s', 'service', 'bare', 'bench (race + viewers)', 'machine busy'], all.map(cpuRow)));
  for (const h of all) if (h.errors.size) say(`hold errors (${h.label}): ${[...h.errors].map(([k, n]) => `${n} × ${k}`).join(', ')}`);
  for (const [name, f] of [['boxoffice', o], ['bare', b]] as const) {
    if (Object.keys(f.failures).length) say(`viewers that failed to connect (${name}): ${Object.entries(f.failures).map(([k, n]) => `${n} × ${k}`).join(', ')}`);
  }
  if (control.problems.length) say(`control stream problems: ${control.problems.slice(0, 5).join('; ')}${control.problems.length > 5 ? ` (${control.problems.length} in all)` : ''}`);
  if (service.logs.count) {
    say(`the service printed ${service.logs.count} lines after it was ready (LOG_LEVEL=warn); the last ones:`);
    for (const l of service.logs.last.slice(-5)) say(`  ${l.slice(0, 300)}`);
  }
  // One line per figure for `npm run bench` (bench/lib/summary.ts).
  writeSummary([
    { bench: 'stream', figure: `commit→delivery p99, ${viewers} viewers`, value: p99, unit: 'ms', baseline: b.commit.at(0.99), baseline_label: 'bare node:http', goal: `< ${GOAL_P99_MS} ms`, met: p99 < GOAL_P99_MS },
    { bench: 'stream', figure: 'fan-out p99', value: o.fanout.at(0.99), unit: 'ms', baseline: b.fanout.at(0.99), baseline_label: 'bare node:http' },
    { bench: 'stream', figure: 'hold answers/s with viewers', value: rate('ours'), unit: 'req/s', baseline: rate('bare'), baseline_label: 'bare node:http' },
  ]);
});
