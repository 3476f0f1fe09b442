// Benchmark: the seat map of a hot show. Many browsers read one show's map; the
// service answers from a short in-memory cache (SEATMAP_CACHE_MS, default 1000).
// Compared, at the same concurrency and in the same run, with a bare Fastify route
// that sends the very same bytes from memory with the same headers: the ratio is
// what our route costs on top of "send a buffer". The 304 path (If-None-Match)
// is measured the same way.
//
//   npm run bench:seatmap          BENCH_SECONDS=10 BENCH_WARMUP_SECONDS=2
//   BENCH_CONNECTIONS=64,256       BENCH_304=0 skips the 304 runs
//   BENCH_ROUNDS=2                 slices per target, taken in ABBA order
//   BENCH_CPU_PROF=1               profile the service into .bench-out/prof
import os from 'node:os';
import path from 'node:path';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { runBenchmark, onCleanup } from './lib/cleanup.js';
import { backendCpuMeter, createBenchDatabase } from './lib/db.js';
import { REPO_ROOT, machineBusySeconds, profileFlags, startBare, startService, type Child } from './lib/child.js';
import { cpuTable } from './lib/report.js';
import { adminToken, call, closeApiClient, createShow, registerBuyers } from './lib/api.js';
import { interleave, reportErrors, runLoad, type LoadResult, type RequestSpec } from './lib/load.js';
import { envList, envNumber, fixed, table } from './lib/stats.js';

const GOAL_RATIO = 0.8;
const say = (s: string) => process.stdout.write(`${s}\n`);
const note = (s: string) => process.stderr.write(`${s}\n`);

runBenchmark(async () => {
  const seconds = envNumber('BENCH_SECONDS', 10);
  const warmupSeconds = envNumber('BENCH_WARMUP_SECONDS', 2);
  const levels = envList('BENCH_CONNECTIONS', [64, 256]);
  const with304 = process.env.BENCH_304 !== '0';
  const rounds = envNumber('BENCH_ROUNDS', 2);
  const loadStart = os.loadavg()[0]!;

  const db = await createBenchDatabase();
  note(`database ${db.name}`);
  const dbCpu = backendCpuMeter(db.name);
  const service = await startService({ databaseUrl: db.url, nodeFlags: profileFlags('boxoffice-seatmap') });
  note(`service pid ${service.pid} on ${service.baseUrl}`);

  // One 200-seat show, 40 of its seats held (4 buyers × 10, holds of 10 minutes).
  const token = await adminToken(service.baseUrl);
  const show = await createShow(service.baseUrl, token, { rows: 10, seatsPerRow: 20 });
  const buyers = await registerBuyers(service.baseUrl, 4);
  for (const [i, b] of buyers.entries()) {
    const row = show.rows[i * 2]!;
    const seats = Array.from({ length: 10 }, (_, k) => `${row}${k + 5}`);
    const r = await call(service.baseUrl, 'POST', `/v1/shows/${show.showId}/holds`, { body: { seats }, token: b.token });
    if (r.status !== 201) throw new Error(`hold failed: ${r.status} ${r.text}`);
  }
  const mapPath = `/v1/shows/${show.showId}/seats`;
  // Past the cache window, so the map we copy shows the holds.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const map = await call(service.baseUrl, 'GET', mapPath);
  if (map.status !== 200) throw new Error(`seat map: ${map.status} ${map.text}`);
  const etag = String(map.headers.etag);
  const contentType = String(map.headers['content-type']);
  const held = (map.body.seats as { status: string }[]).filter((s) => s.status === 'held').length;
  if (held !== 40) throw new Error(`expected 40 held seats on the map, got ${held}`);
  await closeApiClient();

  const workDir = path.join(REPO_ROOT, '.bench-out');
  mkdirSync(workDir, { recursive: true });
  const bodyFile = path.join(workDir, `seatmap-${db.name}.json`);
  writeFileSync(bodyFile, map.raw);
  onCleanup('remove the copied map', () => rmSync(bodyFile, { force: true }));
  const bare = await startBare('static', { BARE_BODY_FILE: bodyFile, BARE_CONTENT_TYPE: contentType, BARE_ETAG: etag }, profileFlags('bare-static'));

  const plain: RequestSpec = { method: 'GET', path: mapPath, headers: ['accept', 'application/json'], body: null };
  const conditional: RequestSpec = { method: 'GET', path: mapPath, headers: ['accept', 'application/json', 'if-none-match', etag], body: null };
  const mapLoad = (label: string, server: Child, connections: number, notModified: boolean, seconds: number) => {
    const want = notModified ? 304 : 200;
    const spec = notModified ? conditional : plain;
    return runLoad({
      label, origin: server.baseUrl, connections, seconds, warmupSeconds,
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
  };

  const servers = { boxoffice: service, 'bare route': bare };
  const runs: { c: number; path: string; service: LoadResult; bare: LoadResult }[] = [];
  for (const c of levels) {
    for (const notModified of with304 ? [false, true] : [false]) {
      const kind = notModified ? '304' : '200';
      note(`\nC=${c}, ${kind}: boxoffice and the bare route (same bytes), ${rounds} round(s) each, ABBA order`);
      const r = await interleave(['boxoffice', 'bare route'] as const, rounds, seconds, (target, s, round) =>
        mapLoad(`${target} ${kind}${rounds > 1 ? ` ${round + 1}/${rounds}` : ''}`, servers[target], c, notModified, s));
      runs.push({ c, path: kind, service: r.boxoffice, bare: r['bare route'] });
    }
  }
  const after = await fetch(`${service.baseUrl}${mapPath}`);
  const afterBody = Buffer.from(await after.arrayBuffer());

  say('');
  say(`== bench:seatmap — GET /v1/shows/{id}/seats of one 200-seat show (40 held), ${map.raw.length} bytes, SEATMAP_CACHE_MS default, closed loop`);
  say(`   ${seconds} s measured per target and row${rounds > 1 ? ` (${rounds} slices of ${fixed(seconds / rounds, 1)} s, ABBA order)` : ''}, each slice after ${warmupSeconds} s warm-up; ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}); node ${process.version}; load average ${fixed(loadStart, 1)} at start, ${fixed(os.loadavg()[0]!, 1)} at end`);
  say('   bare route: Fastify, logger off, the same bytes from memory with the same content-type, etag and cache-control');
  const rows: string[][] = [];
  const verdicts: string[] = [];
  for (const r of runs) {
    const lat = (l: LoadResult) => [fixed(l.latency.p50, 2), fixed(l.latency.p90, 2), fixed(l.latency.p99, 2), fixed(l.latency.max, 1)];
    const errs = (l: LoadResult) => String([...l.errors.values()].reduce((a, n) => a + n, 0));
    const ratio = r.service.rate / r.bare.rate;
    rows.push([String(r.c), r.path, 'boxoffice', fixed(r.service.rate, 0), ...lat(r.service), errs(r.service), fixed(ratio, 2)]);
    rows.push([String(r.c), r.path, 'bare route', fixed(r.bare.rate, 0), ...lat(r.bare), errs(r.bare), '1.00']);
    verdicts.push(`C=${r.c} ${r.path}: boxoffice/bare ${fixed(ratio, 2)}` + (r.path === '200' ? ` (goal >= ${GOAL_RATIO}: ${ratio >= GOAL_RATIO ? 'met' : 'MISSED'})` : ''));
  }
  say(table(['C', 'answer', 'target', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'errors', 'vs bare'], rows));
  say('');
  for (const v of verdicts) say(v);
  say('');
  say('CPU per answer in the measured windows (server = the Node process answering):');
  say(cpuTable(runs.flatMap((r) => [
    { c: r.c, label: r.path, target: 'boxoffice', answers: r.service.answered, seconds: r.service.seconds, cpu: r.service.cpu },
    { c: r.c, label: r.path, target: 'bare route', answers: r.bare.answered, seconds: r.bare.seconds, cpu: r.bare.cpu },
  ]), 'node'));
  say('');
  say(`the map after the runs is ${afterBody.equals(map.raw) ? 'byte-identical to' : 'DIFFERENT from'} the bytes the bare route sent`);
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
});
