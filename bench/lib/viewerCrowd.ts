// The SSE viewers of a bench, in worker threads (bench/lib/sseViewers.ts), each
// thread with its share: open them, wait for a delta, collect what they saw, close.
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { onCleanup } from './cleanup.js';
import type { ViewerResults } from './sseViewers.js';
import { fixed } from './stats.js';

const note = (s: string) => process.stderr.write(`${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// The viewers, in worker threads (BENCH_VIEWER_THREADS, each with its share). One
// thread reading 10,000 sockets falls hundreds of ms behind what the servers send (its
// event loop delay is counted in every delivery): it would measure the load generator,
// not the servers.
export interface Crowd {
  opened: { failures: Record<string, number>; withSnapshot: number };
  /** Waits until every open viewer has delta `version` (or the timeout): how many are still behind, after how long. */
  settle(version: number, timeoutMs: number): Promise<{ behind: number; ms: number }>;
  collect(): Promise<ViewerResults>;
  close(): Promise<void>;
}

export async function openCrowd(label: string, origin: string, streamPath: string, count: number, batch: number, threads: number): Promise<Crowd> {
  const t = Math.max(1, Math.min(threads, count));
  const shares = Array.from({ length: t }, (_, k) => Math.floor(count / t) + (k < count % t ? 1 : 0));
  let opened = 0;
  const t0 = performance.now();
  const parts = await Promise.all(shares.map((share, k) => openViewerThread(`${label} ${k + 1}/${shares.length}`, origin, streamPath, share, Math.ceil(batch / shares.length), (n) => {
    opened += n;
    note(`  [${label}] ${opened}/${count} viewers connected, ${fixed((performance.now() - t0) / 1000, 1)} s`);
  })));
  const failures: Record<string, number> = {};
  for (const p of parts) for (const [k, v] of Object.entries(p.opened.failures)) failures[k] = (failures[k] ?? 0) + v;
  const withSnapshot = parts.reduce((a, p) => a + p.opened.withSnapshot, 0);
  note(`  [${label}] ${withSnapshot}/${count} viewers have their snapshot after ${fixed((performance.now() - t0) / 1000, 1)} s (${shares.length} threads)`);
  return {
    opened: { failures, withSnapshot },
    settle: async (version, timeoutMs) => {
      const all = await Promise.all(parts.map((p) => p.settle(version, timeoutMs)));
      return { behind: all.reduce((a, r) => a + r.behind, 0), ms: Math.max(...all.map((r) => r.ms)) };
    },
    collect: async () => mergeResults(await Promise.all(parts.map((p) => p.collect()))),
    close: async () => { await Promise.all(parts.map((p) => p.close())); },
  };
}

/** The threads' results as one crowd's: viewers one after another, arrivals over the union of versions; the worst thread's loop delay. */
function mergeResults(rs: ViewerResults[]): ViewerResults {
  if (rs.length === 1) return rs[0]!;
  const n = rs.reduce((a, r) => a + r.snapshot.length, 0);
  const withVersions = rs.filter((r) => r.versions > 0);
  const firstVersion = withVersions.length ? Math.min(...withVersions.map((r) => r.firstVersion)) : 0;
  const versions = withVersions.length ? Math.max(...withVersions.map((r) => r.firstVersion + r.versions)) - firstVersion : 0;
  const cat = <T extends Float64Array | Uint8Array>(make: (n: number) => T, pick: (r: ViewerResults) => T): T => {
    const out = make(n);
    let at = 0;
    for (const r of rs) { out.set(pick(r), at); at += r.snapshot.length; }
    return out;
  };
  const arrivals = new Float64Array(versions * n).fill(NaN);
  let offset = 0;
  for (const r of rs) {
    const m = r.snapshot.length;
    for (let k = 0; k < r.versions; k++) {
      arrivals.set(r.arrivals.subarray(k * m, (k + 1) * m), (r.firstVersion - firstVersion + k) * n + offset);
    }
    offset += m;
  }
  const failures: Record<string, number> = {};
  for (const r of rs) for (const [k, v] of Object.entries(r.failures)) failures[k] = (failures[k] ?? 0) + v;
  const worst = rs.reduce((w, r) => (r.loopDelay.p99 > w.loopDelay.p99 ? r : w));
  return {
    type: 'results', snapshot: cat((k) => new Float64Array(k), (r) => r.snapshot), last: cat((k) => new Float64Array(k), (r) => r.last),
    received: cat((k) => new Float64Array(k), (r) => r.received), gaps: cat((k) => new Float64Array(k), (r) => r.gaps),
    repeats: cat((k) => new Float64Array(k), (r) => r.repeats), ended: cat((k) => new Uint8Array(k), (r) => r.ended),
    firstVersion, versions, arrivals, failures,
    loopDelay: { p50: worst.loopDelay.p50, p99: worst.loopDelay.p99, max: Math.max(...rs.map((r) => r.loopDelay.max)) },
  };
}

/** One worker thread's viewers. */
async function openViewerThread(label: string, origin: string, streamPath: string, count: number, batch: number, progress: (newlyOpened: number) => void): Promise<Crowd> {
  const worker = new Worker(new URL('./sseViewers.js', import.meta.url), { workerData: { origin, path: streamPath, count, batch } });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const unregister = onCleanup(`close the ${label} viewers`, async () => { worker.postMessage('close'); await Promise.race([exited, sleep(3000)]); await worker.terminate(); });
  let onResults: ((r: ViewerResults) => void) | null = null;
  let onSettled: ((r: { behind: number; ms: number }) => void) | null = null;
  let reported = 0;
  const opened = await new Promise<Crowd['opened']>((resolve, reject) => {
    worker.on('error', reject);
    worker.on('message', (m: { type: 'progress'; opened: number; failed: number } | ({ type: 'opened' } & Crowd['opened']) | { type: 'settled'; behind: number; ms: number } | ViewerResults) => {
      if (m.type === 'progress') { progress(m.opened - reported); reported = m.opened; }
      else if (m.type === 'opened') resolve({ failures: m.failures, withSnapshot: m.withSnapshot });
      else if (m.type === 'results') onResults?.(m);
      else if (m.type === 'settled') onSettled?.(m);
    });
  });
  return {
    opened,
    settle: (version, timeoutMs) => new Promise((resolve) => { onSettled = resolve; worker.postMessage({ type: 'settle', version, timeoutMs }); }),
    collect: () => new Promise((resolve) => { onResults = resolve; worker.postMessage('collect'); }),
    close: () => unregister(),
  };
}
