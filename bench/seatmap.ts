// Benchmark: the seat map of a hot show, and one section of a stadium's map. Many
// browsers read them while holds and releases run on the show at a fixed rate
// through the API, so the service's short cache (SEATMAP_CACHE_MS, default 1000)
// is rebuilt on changing data every refresh. Each answer is measured plain and
// compressed (Accept-Encoding: gzip, br), and compared, at the same concurrency
// and in the same run, with a bare Fastify route that sends the very same bytes
// from memory with the same headers: the ratio is what our route costs on top of
// "send a buffer". The 304 path (If-None-Match) is measured on the stadium section.
//
//   npm run bench:seatmap          BENCH_SECONDS=10 BENCH_WARMUP_SECONDS=2
//   BENCH_CONNECTIONS=64,256       BENCH_304=0 skips the 304 runs
//   BENCH_ROUNDS=2                 slices per target, taken in ABBA order
//   BENCH_HOLD_RATE=50             hold or release requests per second on the measured show
//   BENCH_CODINGS=identity,gzip,br BENCH_SECTION=101
//   BENCH_CPU_PROF=1               profile the service into .bench-out/prof
import os from 'node:os';
import path from 'node:path';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { runBenchmark, onCleanup } from './lib/cleanup.js';
import { writeSummary } from './lib/summary.js';
import { backendCpuMeter, createBenchDatabase } from './lib/db.js';
import { REPO_ROOT, machineBusySeconds, profileFlags, startBare, startService, type Child } from './lib/child.js';
import { cpuTable } from './lib/report.js';
import { adminToken, call, closeApiClient, createShow, registerBuyers, replayedHeaders, type HallLayoutRow } from './lib/api.js';
import { holdChurn, type HoldChurn } from './lib/holdChurn.js';
import { interleave, reportErrors, runLoad, type LoadResult, type RequestSpec } from './lib/load.js';
import { envList, envNumber, fixed, table } from './lib/stats.js';

const GOAL_RATIO = 0.8;
const say = (s: string) => process.stdout.write(`${s}\n`);
const note = (s: string) => process.stderr.write(`${s}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Coding = 'identity' | 'gzip' | 'br';

/** The demo stadium's shape: 24 sections × 25 rows × 100 seats, lower bowl 101–112, upper 201–212. */
function stadiumLayout(): HallLayoutRow[] {
  const rows: HallLayoutRow[] = [];
  for (const bowl of [100, 200]) {
    for (let s = 1; s <= 12; s++) {
      for (let r = 0; r < 25; r++) rows.push({ row: String.fromCharCode(65 + r), seats: 100, tier: bowl === 100 ? 'lower' : 'upper', section: String(bowl + s) });
    }
  }
  return rows;
}

runBenchmark(async () => {
  const seconds = envNumber('BENCH_SECONDS', 10);
  const warmupSeconds = envNumber('BENCH_WARMUP_SECONDS', 2);
  const levels = envList('BENCH_CONNECTIONS', [64, 256]);
  const with304 = process.env.BENCH_304 !== '0';
  const rounds = envNumber('BENCH_ROUNDS', 2);
  const holdRate = envNumber('BENCH_HOLD_RATE', 50);
  const codings = (process.env.BENCH_CODINGS ?? 'identity,gzip,br').split(',').map((c) => c.trim()) as Coding[];
  for (const c of codings) if (!['identity', 'gzip', 'br'].includes(c)) throw new Error(`BENCH_CODINGS: unknown coding ${c}`);
  const section = process.env.BENCH_SECTION ?? '101';
  const loadStart = os.loadavg()[0]!;

  const db = await createBenchDatabase();
  note(`database ${db.name}`);
  const dbCpu = backendCpuMeter(db.name);
  const service = await startService({ databaseUrl: db.url, nodeFlags: profileFlags('boxoffice-seatmap') });
  note(`service pid ${service.pid} on ${service.baseUrl}`);

  // A 200-seat show, 40 of its seats held for the whole run (4 buyers × 10, holds of 10 minutes),
  // and a 60,000-seat stadium show.
  const token = await adminToken(service.baseUrl);
  const hot = await createShow(service.baseUrl, token, { rows: 10, seatsPerRow: 20 });
  const layout = stadiumLayout();
  const stadium = await createShow(service.baseUrl, token, { rows: 0, seatsPerRow: 0, layout, price_tiers: { lower: 9500, upper: 6500 } });
  const buyers = await registerBuyers(service.baseUrl, 16);
  const preHeld = new Set<string>();
  for (const [i, b] of buyers.slice(0, 4).entries()) {
    const row = hot.rows[i * 2]!;
    const seats = Array.from({ length: 10 }, (_, k) => `${row}${k + 5}`);
    const r = await call(service.baseUrl, 'POST', `/v1/shows/${hot.showId}/holds`, { body: { seats }, token: b.token });
    if (r.status !== 201) throw new Error(`hold failed: ${r.status} ${r.text}`);
    for (const s of seats) preHeld.add(s);
  }
  const hotSeats = hot.rows.flatMap((row) => Array.from({ length: hot.seatsPerRow }, (_, k) => `${row}${k + 1}`)).filter((s) => !preHeld.has(s));
  const stadiumSeats = layout.flatMap((r) => Array.from({ length: r.seats }, (_, k) => `${r.section}-${r.row}${k + 1}`));
  const churnOf = (showId: string, seats: string[], from: number) =>
    holdChurn({ baseUrl: service.baseUrl, showId, buyers: buyers.slice(from, from + 6), seats, perSecond: holdRate });

  interface Scenario { key: string; title: string; path: string; churn: HoldChurn; churned: { holds: number; taken: number; releases: number; errors: number; skipped: number; seconds: number; lastError: string } }
  const scenario = (key: string, title: string, p: string, churn: HoldChurn): Scenario =>
    ({ key, title, path: p, churn, churned: { holds: 0, taken: 0, releases: 0, errors: 0, skipped: 0, seconds: 0, lastError: '' } });
  const scenarios = [
    scenario('hot', '200-seat show, whole map', `/v1/shows/${hot.showId}/seats`, churnOf(hot.showId, hotSeats, 4)),
    scenario(`section ${section}`, `stadium section ${section} (2,500 of 60,000 seats)`, `/v1/shows/${stadium.showId}/seats?section=${section}`, churnOf(stadium.showId, stadiumSeats, 10)),
  ];

  // Record every answer the bare route will replay: bytes and headers, as the service sends them.
  await sleep(1100);
  const workDir = path.join(REPO_ROOT, '.bench-out', `seatmap-${db.name}`);
  mkdirSync(workDir, { recursive: true });
  onCleanup('remove the recorded answers', () => rmSync(workDir, { recursive: true, force: true }));
  const manifest: { url: string; acceptEncoding: string; file: string; headers: Record<string, string> }[] = [];
  const recorded = new Map<string, { bytes: number; decoded: number; etag: string }>();
  const checks: string[] = [];
  for (const s of scenarios) {
    let plainJson = '';
    for (const coding of codings) {
      const r = await call(service.baseUrl, 'GET', s.path, { headers: coding === 'identity' ? {} : { 'accept-encoding': coding } });
      if (r.status !== 200) throw new Error(`${s.path} (${coding}): ${r.status} ${r.text.slice(0, 300)}`);
      const encoding = r.headers['content-encoding'] as string | undefined;
      if ((encoding ?? 'identity') !== coding) throw new Error(`${s.path}: asked for ${coding}, got content-encoding ${encoding ?? 'none'}`);
      const json = r.text;
      const seats = (JSON.parse(json) as { seats: unknown[] }).seats.length;
      if (coding === 'identity') plainJson = json;
      checks.push(`${s.key} ${coding}: ${r.raw.length} bytes on the wire, ${seats} seats` + (plainJson && coding !== 'identity' ? `, decodes to ${json === plainJson ? 'the same JSON as' : 'JSON DIFFERENT from'} the plain answer` : ''));
      const file = path.join(workDir, `${s.key.replace(/\W/g, '_')}-${coding}.bin`);
      writeFileSync(file, r.raw);
      const headers = replayedHeaders(r);
      manifest.push({ url: s.path, acceptEncoding: coding === 'identity' ? '' : coding, file, headers });
      recorded.set(`${s.key} ${coding}`, { bytes: r.raw.length, decoded: json.length, etag: headers.etag ?? '' });
    }
  }
  const fullStadium = await Promise.all((['identity', 'br'] as const).map((c) =>
    call(service.baseUrl, 'GET', `/v1/shows/${stadium.showId}/seats`, { headers: c === 'identity' ? {} : { 'accept-encoding': c } })));
  const manifestFile = path.join(workDir, 'manifest.json');
  writeFileSync(manifestFile, JSON.stringify(manifest));
  const bare = await startBare('static', { BARE_MANIFEST: manifestFile }, profileFlags('bare-static'));

  const mapLoad = (label: string, server: Child, connections: number, spec: RequestSpec, want: number, s: number) => runLoad({
    label, origin: server.baseUrl, connections, seconds: s, warmupSeconds,
    cpuMeters: [
      { name: 'server', read: () => server.cpuSeconds() },
      dbCpu,
      { name: 'machine', read: machineBusySeconds },
    ],
    outcomes: [String(want)],
    next: () => spec,
    wantBody: (status) => status !== want,
    classify: (status) => (status === want ? 0 : -1),
  });
  const specOf = (p: string, coding: Coding, etag?: string): RequestSpec => ({
    method: 'GET', path: p, body: null,
    headers: ['accept', 'application/json', ...(coding === 'identity' ? [] : ['accept-encoding', coding]), ...(etag ? ['if-none-match', etag] : [])],
  });

  const servers = { boxoffice: service, 'bare route': bare };
  const runs: { c: number; label: string; bytes: number; service: LoadResult; bare: LoadResult; notModified: boolean }[] = [];
  for (const c of levels) {
    for (const s of scenarios) {
      s.churn.start();
      for (const coding of codings) {
        const label = `${s.key} ${coding}`;
        note(`\nC=${c}, ${label}, holds running: boxoffice and the bare route (same bytes), ${rounds} round(s) each, ABBA order`);
        const spec = specOf(s.path, coding);
        const r = await interleave(['boxoffice', 'bare route'] as const, rounds, seconds, (target, sec, round) =>
          mapLoad(`${target} ${label}${rounds > 1 ? ` ${round + 1}/${rounds}` : ''}`, servers[target], c, spec, 200, sec));
        runs.push({ c, label, bytes: recorded.get(label)!.bytes, service: r.boxoffice, bare: r['bare route'], notModified: false });
      }
      await s.churn.stop();
      const k = s.churn.counts;
      Object.assign(s.churned, {
        holds: s.churned.holds + k.holds, taken: s.churned.taken + k.taken, releases: s.churned.releases + k.releases,
        errors: s.churned.errors + k.errors, skipped: s.churned.skipped + k.skipped, seconds: s.churned.seconds + s.churn.seconds(),
        lastError: k.lastError || s.churned.lastError,
      });
    }
    if (with304) {
      // No holds on the stadium now, so a tag stays current for the whole run.
      const s = scenarios[1]!;
      const coding = codings[0]!;
      await sleep(1100);
      const now = await call(service.baseUrl, 'GET', s.path, { headers: coding === 'identity' ? {} : { 'accept-encoding': coding } });
      const ours = specOf(s.path, coding, String(now.headers.etag));
      const theirs = specOf(s.path, coding, recorded.get(`${s.key} ${coding}`)?.etag);
      const label = `${s.key} ${coding} 304`;
      note(`\nC=${c}, ${label}, no holds: boxoffice and the bare route, ${rounds} round(s) each, ABBA order`);
      const r = await interleave(['boxoffice', 'bare route'] as const, rounds, seconds, (target, sec, round) =>
        mapLoad(`${target} ${label}${rounds > 1 ? ` ${round + 1}/${rounds}` : ''}`, servers[target], c, target === 'boxoffice' ? ours : theirs, 304, sec));
      runs.push({ c, label, bytes: 0, service: r.boxoffice, bare: r['bare route'], notModified: true });
    }
  }
  await closeApiClient();

  say('');
  say(`== bench:seatmap — a 200-seat show's map (40 seats held throughout) and stadium section ${section} (GET …/seats?section=), SEATMAP_CACHE_MS default, closed loop`);
  say(`   while the rows of a show run, holds and releases run on that show at ${holdRate}/s through the API (2 random seats a hold, 6 buyers), so the cache is rebuilt on changing data`);
  say(`   ${seconds} s measured per target and row${rounds > 1 ? ` (${rounds} slices of ${fixed(seconds / rounds, 1)} s, ABBA order)` : ''}, each slice after ${warmupSeconds} s warm-up; ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}); node ${process.version}; load average ${fixed(loadStart, 1)} at start, ${fixed(os.loadavg()[0]!, 1)} at end`);
  say('   bare route: Fastify, logger off, the same bytes from memory with the same headers (all but those Node writes itself), picked by URL and Accept-Encoding');
  say(`   the whole stadium map: ${fullStadium[0]!.raw.length} bytes, ${fullStadium[1]!.raw.length} with br`);
  const rows: string[][] = [];
  const verdicts: string[] = [];
  for (const r of runs) {
    const lat = (l: LoadResult) => [fixed(l.latency.p50, 2), fixed(l.latency.p90, 2), fixed(l.latency.p99, 2), fixed(l.latency.max, 1)];
    const errs = (l: LoadResult) => String([...l.errors.values()].reduce((a, n) => a + n, 0));
    const ratio = r.service.rate / r.bare.rate;
    rows.push([String(r.c), r.label, 'boxoffice', String(r.bytes), fixed(r.service.rate, 0), ...lat(r.service), errs(r.service), fixed(ratio, 2)]);
    rows.push([String(r.c), r.label, 'bare route', String(r.bytes), fixed(r.bare.rate, 0), ...lat(r.bare), errs(r.bare), '1.00']);
    verdicts.push(`C=${r.c} ${r.label}: boxoffice/bare ${fixed(ratio, 2)}, p50 ${fixed(r.service.latency.p50, 2)} vs ${fixed(r.bare.latency.p50, 2)} ms, p99 ${fixed(r.service.latency.p99, 2)} vs ${fixed(r.bare.latency.p99, 2)} ms`
      + (r.notModified ? '' : ` (goal >= ${GOAL_RATIO}: ${ratio >= GOAL_RATIO ? 'met' : 'MISSED'})`));
  }
  say(table(['C', 'answer', 'target', 'bytes', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'errors', 'vs bare'], rows));
  say('');
  for (const v of verdicts) say(v);
  say('');
  say('holds running beside the map reads (over all the rows of that show):');
  for (const s of scenarios) {
    const k = s.churned;
    say(`  ${s.title}: ${fixed(k.holds / k.seconds, 1)} holds/s and ${fixed(k.releases / k.seconds, 1)} releases/s over ${fixed(k.seconds, 0)} s; ${k.taken} holds refused SEAT_UNAVAILABLE, ${k.skipped} turns skipped (buyer still waiting), ${k.errors} errors${k.errors ? ` e.g. ${k.lastError}` : ''}`);
  }
  say('');
  say('CPU per answer in the measured windows (server = the Node process answering; postgres includes the holds):');
  say(cpuTable(runs.flatMap((r) => [
    { c: r.c, label: r.label, target: 'boxoffice', answers: r.service.answered, seconds: r.service.seconds, cpu: r.service.cpu },
    { c: r.c, label: r.label, target: 'bare route', answers: r.bare.answered, seconds: r.bare.seconds, cpu: r.bare.cpu },
  ]), 'node'));
  say('');
  say('answers recorded for the bare route:');
  for (const c of checks) say(`  ${c}`);
  for (const r of runs) {
    for (const l of [r.service, r.bare]) {
      const e = reportErrors(l);
      if (e) say(e);
    }
  }
  if (service.logs.count) {
    say(`the service printed ${service.logs.count} lines after it was ready (LOG_LEVEL=warn); the last ones:`);
    for (const l of service.logs.last.slice(-5)) say(`  ${l.slice(0, 300)}`);
  }
  // One line per figure for `npm run bench` (bench/lib/summary.ts).
  writeSummary(runs.map((r) => ({
    bench: 'seatmap', figure: `${r.label} req/s at C=${r.c}`, value: r.service.rate, unit: 'req/s', baseline: r.bare.rate, baseline_label: 'bare route, same bytes',
    ...(r.notModified ? {} : { goal: `ratio >= ${GOAL_RATIO}`, met: r.service.rate / r.bare.rate >= GOAL_RATIO }),
  })));
});
