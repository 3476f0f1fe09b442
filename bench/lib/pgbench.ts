// pgbench as the raw database baseline: the same SQL the service sends, no HTTP,
// no Node. Latency percentiles come from its per-transaction log (-l), cut to the
// same measured window as the HTTP runs (warm-up dropped).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { onCleanup } from './cleanup.js';
import { percentiles, type Percentiles } from './stats.js';
import { processCpuSeconds } from './child.js';
import type { CpuMeter } from './load.js';
import { readMeters } from './cpuWindow.js';

export const PGBENCH = process.env.PGBENCH ?? '/usr/bin/pgbench';

export interface PgbenchOptions {
  label: string;
  databaseUrl: string;
  clients: number;
  threads: number;
  seconds: number;
  warmupSeconds: number;
  /** The custom script (\set lines and one SQL statement). */
  script: string;
  /** -D name=value; in extended mode each :name becomes a query parameter. */
  defines: Record<string, string>;
  workDir: string;
  /** Read at the window's start and end, like the HTTP runs' meters ("generator" is pgbench itself). */
  cpuMeters?: CpuMeter[];
}

export interface PgbenchResult {
  label: string;
  clients: number;
  seconds: number;
  /** Transactions that ended inside the measured window. */
  transactions: number;
  failed: number;
  tps: number;
  latency: Percentiles;
  /** What pgbench itself printed for the whole run (warm-up included). */
  reportedTps: number | null;
  /** The measured window, in Unix seconds. */
  window: { from: number; to: number };
  cpu: Record<string, number | null>;
}

export async function runPgbench(o: PgbenchOptions): Promise<PgbenchResult> {
  const dir = path.join(o.workDir, `pgbench-${o.label}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  const scriptFile = path.join(dir, 'script.sql');
  writeFileSync(scriptFile, o.script);
  const duration = Math.ceil(o.warmupSeconds + o.seconds + 1);
  const args = [
    '-n', '-M', 'extended', '-c', String(o.clients), '-j', String(Math.min(o.threads, o.clients)), '-T', String(duration), '-P', '1',
    '-l', `--log-prefix=${path.join(dir, 'tx')}`, '-f', scriptFile,
    ...Object.entries(o.defines).flatMap(([k, v]) => ['-D', `${k}=${v}`]),
    o.databaseUrl,
  ];
  const startedAt = Date.now() / 1000;
  const proc = spawn(PGBENCH, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const unregister = onCleanup('stop pgbench', () => { if (proc.exitCode === null) proc.kill('SIGINT'); });
  let stdout = '';
  let stderrTail = '';
  proc.stdout.setEncoding('utf8').on('data', (s: string) => { stdout += s; });
  let partial = '';
  proc.stderr.setEncoding('utf8').on('data', (s: string) => {
    partial += s;
    let nl: number;
    while ((nl = partial.indexOf('\n')) >= 0) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      stderrTail = `${stderrTail}${line}\n`.slice(-4000);
      if (line.startsWith('progress:')) process.stderr.write(`  [pgbench C=${o.clients}] ${line}\n`);
    }
  });
  const meters: CpuMeter[] = [{ name: 'generator', read: () => processCpuSeconds(proc.pid!) }, ...(o.cpuMeters ?? [])];
  let atStart: Promise<(number | null)[]> = Promise.resolve(meters.map(() => null));
  let atEnd: Promise<(number | null)[]> = Promise.resolve(meters.map(() => null));
  const t1 = setTimeout(() => { atStart = readMeters(meters); }, o.warmupSeconds * 1000);
  const t2 = setTimeout(() => { atEnd = readMeters(meters); }, (o.warmupSeconds + o.seconds) * 1000);
  const code = await new Promise<number | null>((resolve) => proc.once('exit', (c) => resolve(c)));
  clearTimeout(t1);
  clearTimeout(t2);
  const [a, b] = [await atStart, await atEnd];
  const cpu: Record<string, number | null> = {};
  meters.forEach((m, i) => { cpu[m.name] = a[i] == null || b[i] == null ? null : b[i]! - a[i]!; });
  await unregister();
  if (code !== 0) throw new Error(`pgbench exited with ${code}:\n${stderrTail}\n${stdout}`);

  // Log lines: client_id transaction_no time script_no time_epoch time_us [...]; time in µs or "failed"/"skipped".
  const from = startedAt + o.warmupSeconds;
  const to = from + o.seconds;
  let lat = new Float64Array(1 << 16);
  let n = 0;
  let failed = 0;
  for (const file of readdirSync(dir).filter((f) => f.startsWith('tx.'))) {
    for (const line of readFileSync(path.join(dir, file), 'utf8').split('\n')) {
      if (!line) continue;
      const f = line.split(' ');
      const end = Number(f[4]) + Number(f[5]) / 1e6;
      if (end < from || end > to) continue;
      const us = Number(f[2]);
      if (!Number.isFinite(us)) {
        failed++;
        continue;
      }
      if (n === lat.length) {
        const bigger = new Float64Array(lat.length * 2);
        bigger.set(lat);
        lat = bigger;
      }
      lat[n++] = us / 1000;
    }
  }
  if (!process.env.BENCH_KEEP_LOGS) rmSync(dir, { recursive: true, force: true });
  const reported = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout);
  return {
    label: o.label,
    clients: o.clients,
    seconds: o.seconds,
    transactions: n,
    failed,
    tps: n / o.seconds,
    latency: percentiles(lat.subarray(0, n)),
    reportedTps: reported ? Number(reported[1]) : null,
    window: { from, to },
    cpu,
  };
}
