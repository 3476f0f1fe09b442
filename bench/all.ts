// `npm run bench`: every benchmark in bench/, one after another, each in its own
// process (its own tables printed as it runs), then one table of every figure the
// benches wrote to BENCH_SUMMARY_FILE (bench/lib/summary.ts): our value, its
// baseline measured in the same run, the ratio, and the goal where there is one.
//
//   npm run bench                          all of them (overload alone takes ~4 min)
//   BENCH_ONLY=bookings,seatmap npm run bench
//   BENCH_QUICK=1 npm run bench            shorter settings (each bench's own knobs, unless set)
// Every other BENCH_* variable reaches every bench as it is (e.g. BENCH_ROUNDS=1).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './lib/child.js';
import { fixed, table } from './lib/stats.js';
import type { SummaryFigure } from './lib/summary.js';

interface Bench {
  name: string;
  script: string;
  /** Shorter settings for BENCH_QUICK=1, through the bench's own variables. */
  quick: Record<string, string>;
  /** Why it cannot run on this machine, or null. */
  missing?: () => string | null;
}

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const BENCHES: Bench[] = [
  { name: 'holds', script: 'holds.js', quick: { BENCH_SECONDS: '4', BENCH_WARMUP_SECONDS: '1', BENCH_ROUNDS: '1', BENCH_CONNECTIONS: '64' } },
  { name: 'hotpath', script: 'hotpath.js', quick: { BENCH_SECONDS: '4', BENCH_WARMUP_SECONDS: '1', BENCH_ROUNDS: '1', BENCH_CONNECTIONS: '64', BENCH_CODINGS: 'identity' } },
  { name: 'seatmap', script: 'seatmap.js', quick: { BENCH_SECONDS: '4', BENCH_WARMUP_SECONDS: '1', BENCH_ROUNDS: '1', BENCH_CONNECTIONS: '64' } },
  { name: 'bookings', script: 'bookings.js', quick: { BENCH_BOOKINGS: '400', BENCH_WEBHOOKS: '100', BENCH_WARMUP_BOOKINGS: '300' } },
  { name: 'abuse', script: 'abuse.js', quick: { BENCH_BUYERS: '40', BENCH_ROUNDS: '2' } },
  { name: 'overload', script: 'overload.js', quick: { BENCH_BUYERS: '2000', BENCH_UNLOADED_SECONDS: '5', BENCH_MAX_SECONDS: '45' } },
  { name: 'feed', script: 'seatFeed.js', quick: { BENCH_SECONDS: '4', BENCH_WARMUP_SECONDS: '1', BENCH_ROUNDS: '1' } },
  { name: 'shards', script: 'shards.js', quick: { BENCH_SECONDS: '6', BENCH_WARMUP_SECONDS: '1', BENCH_ROUNDS: '1' } },
  { name: 'stream', script: 'stream.js', quick: { BENCH_SECONDS: '6', BENCH_ROUNDS: '1', BENCH_VIEWERS: '2000' } },
  {
    name: 'webapp', script: 'webapp.js', quick: { BENCH_TRIALS: '5' },
    missing: () => (existsSync(chromium) ? null : `${chromium} is missing (install chromium or set CHROMIUM_PATH)`),
  },
];

const say = (s: string) => process.stdout.write(`${s}\n`);
const note = (s: string) => process.stderr.write(`${s}\n`);
const clock = () => new Date().toISOString().slice(11, 19);

function chosen(): Bench[] {
  const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim()).filter(Boolean);
  if (!only?.length) return BENCHES;
  const unknown = only.filter((n) => !BENCHES.some((b) => b.name === n));
  if (unknown.length) throw new Error(`BENCH_ONLY names no bench: ${unknown.join(', ')} (there are ${BENCHES.map((b) => b.name).join(', ')})`);
  return BENCHES.filter((b) => only.includes(b.name));
}

function run(bench: Bench, summaryFile: string): Promise<number> {
  const quick = process.env.BENCH_QUICK === '1'
    ? Object.fromEntries(Object.entries(bench.quick).filter(([k]) => process.env[k] === undefined)) : {};
  if (Object.keys(quick).length) note(`    quick settings: ${Object.entries(quick).map(([k, v]) => `${k}=${v}`).join(' ')}`);
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'dist/bench', bench.script)], {
    cwd: REPO_ROOT, stdio: 'inherit', env: { ...process.env, ...quick, BENCH_SUMMARY_FILE: summaryFile },
  });
  // Ctrl-C reaches the child too (same process group); it cleans up after itself.
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1))));
}

function readFigures(file: string): SummaryFigure[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as SummaryFigure);
}

const value = (v: number | null, unit: string) => (v === null ? '-' : `${Number.isInteger(v) ? String(v) : fixed(v, Math.abs(v) >= 100 ? 0 : 2)} ${unit}`);

async function main(): Promise<number> {
  const benches = chosen();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'boxoffice-bench-'));
  const summaryFile = path.join(dir, 'summary.jsonl');
  const outcomes: { name: string; result: string }[] = [];
  const started = Date.now();
  try {
    for (const [i, bench] of benches.entries()) {
      const why = bench.missing?.();
      note(`\n==> [${i + 1}/${benches.length}] bench:${bench.name} ${why ? 'skipped' : `started ${clock()}`}`);
      if (why) {
        say(`bench:${bench.name} skipped: ${why}`);
        outcomes.push({ name: bench.name, result: `skipped: ${why}` });
        continue;
      }
      const t0 = Date.now();
      const code = await run(bench, summaryFile);
      const took = `${fixed((Date.now() - t0) / 1000, 0)} s`;
      note(`==> bench:${bench.name} ${code === 0 ? 'done' : `FAILED (exit ${code})`} in ${took}`);
      outcomes.push({ name: bench.name, result: code === 0 ? `ok in ${took}` : `failed (exit ${code}) after ${took}` });
      if (code === 130 || code === 143) break; // interrupted: the rest would be too
    }
    const figures = readFigures(summaryFile);
    say('');
    say(`== npm run bench — ${outcomes.length} of ${BENCHES.length} benches in ${fixed((Date.now() - started) / 60_000, 1)} min${process.env.BENCH_QUICK === '1' ? ' (BENCH_QUICK=1: shorter settings)' : ''}; ${os.cpus().length} CPUs, load average ${fixed(os.loadavg()[0]!, 1)} at the end`);
    say('   each baseline was measured in the same run as the figure beside it; ratio = ours / baseline');
    say(table(['bench', 'figure', 'ours', 'baseline', 'baseline is', 'ratio', 'goal', 'met'], figures.map((f) => [
      f.bench, f.figure, value(f.value, f.unit), value(f.baseline, f.unit), f.baseline_label,
      f.ratio === null || f.ratio === undefined ? '-' : fixed(f.ratio, 2), f.goal ?? '', f.met === undefined ? '' : f.met ? 'met' : 'MISSED',
    ])));
    say('');
    for (const o of outcomes) say(`bench:${o.name}: ${o.result}`);
    return outcomes.some((o) => o.result.startsWith('failed')) ? 1 : 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The children get Ctrl-C themselves; this process only waits for them and then reports.
process.on('SIGINT', () => note('interrupted: waiting for the running bench to clean up'));
main().then((code) => process.exit(code), (err: unknown) => {
  note(`npm run bench failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
