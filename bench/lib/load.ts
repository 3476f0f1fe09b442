// A closed-loop HTTP load generator on undici's dispatcher API: C connections,
// each sends its next request as soon as the previous answer is complete. One
// reusable handler per connection, prebuilt headers and bodies, latencies in a
// typed array: the generator allocates little, so it takes little of the CPU the
// server under test needs (they share the machine).
import { Agent, type Dispatcher } from 'undici';
import { performance } from 'node:perf_hooks';
import { Latencies, fixed, type Percentiles } from './stats.js';
import { ownCpu, readMeters } from './cpuWindow.js';

export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  /** Flat [name, value, name, value…], built once. */
  headers: string[];
  body: Buffer | null;
}

export interface LoadOptions {
  label: string;
  origin: string;
  connections: number;
  /** Measured window, after the warm-up. */
  seconds: number;
  warmupSeconds: number;
  /** The next request of connection `conn`; should hand out prebuilt objects. */
  next(conn: number): RequestSpec;
  /** Names of the answers that count as decided; classify returns an index, or -1 for an error. */
  outcomes: readonly string[];
  classify(status: number, body: Buffer | null): number;
  /** Bodies are read only for statuses that need them (to tell error codes apart). */
  wantBody(status: number): boolean;
  /** A name for an error answer, e.g. "HTTP 503 OVERLOADED". */
  errorKey?(status: number, body: Buffer | null): string;
  /** CPU meters read at the window's start and end, e.g. the server's, the database's. */
  cpuMeters?: CpuMeter[];
}

export interface CpuMeter {
  name: string;
  /** CPU seconds used so far, or null when unknown. */
  read(): number | null | Promise<number | null>;
}

export interface LoadResult {
  label: string;
  connections: number;
  seconds: number;
  /** Decided answers in the window, by outcome. */
  counts: number[];
  decided: number;
  /** Decided answers per second in the window. */
  rate: number;
  errors: Map<string, number>;
  errorSamples: Map<string, string>;
  samples: Latencies;
  latency: Percentiles;
  /** Every answer in the window, decided or not. */
  answered: number;
  /** CPU seconds used in the window, per meter (null when unknown), "generator" being this process. */
  cpu: Record<string, number | null>;
}

/** CPU microseconds per answer, or NaN. */
export function cpuPerAnswer(cpuSeconds: number | null, answers: number): number {
  return cpuSeconds === null || answers === 0 ? NaN : (cpuSeconds * 1e6) / answers;
}

class Connection implements Dispatcher.DispatchHandler {
  t0 = 0;
  status = 0;
  keep = false;
  chunks: Buffer[] | null = null;
  readonly sendNext: () => void;

  constructor(readonly run: Run, readonly index: number) {
    this.sendNext = () => run.send(this);
  }

  onConnect(): void {}
  onHeaders(status: number): boolean {
    this.status = status;
    this.keep = this.run.opts.wantBody(status);
    return true;
  }
  onData(chunk: Buffer): boolean {
    if (this.keep) (this.chunks ??= []).push(Buffer.from(chunk));
    return true;
  }
  onComplete(): void {
    const chunks = this.chunks;
    this.chunks = null;
    const body = chunks ? (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)) : null;
    this.run.complete(this, body);
  }
  onError(err: Error): void {
    this.chunks = null;
    this.run.failed(this, err);
  }
}

class Run {
  readonly agent: Agent;
  readonly latencies = new Latencies();
  readonly counts: number[];
  readonly errors = new Map<string, number>();
  readonly errorSamples = new Map<string, string>();
  measureStart = 0;
  measureEnd = Infinity;
  answeredInWindow = 0;
  stopped = false;
  inFlight = 0;
  // For progress lines: everything answered, decided or not, since the start.
  answered = 0;
  answeredErrors = 0;
  firstOutcome = 0;
  private drained: (() => void) | null = null;

  constructor(readonly opts: LoadOptions) {
    this.counts = opts.outcomes.map(() => 0);
    this.agent = new Agent({ connections: opts.connections, pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });
  }

  send(conn: Connection): void {
    if (this.stopped) {
      if (this.inFlight === 0) this.drained?.();
      return;
    }
    const spec = this.opts.next(conn.index);
    this.inFlight++;
    conn.t0 = performance.now();
    this.agent.dispatch({ origin: this.opts.origin, path: spec.path, method: spec.method, headers: spec.headers, body: spec.body }, conn);
  }

  complete(conn: Connection, body: Buffer | null): void {
    const now = performance.now();
    this.inFlight--;
    this.answered++;
    const outcome = this.opts.classify(conn.status, body);
    if (outcome === 0) this.firstOutcome++;
    const inWindow = now >= this.measureStart && now <= this.measureEnd;
    if (inWindow) this.answeredInWindow++;
    if (outcome >= 0) {
      if (inWindow) {
        this.counts[outcome]!++;
        this.latencies.add(now - conn.t0);
      }
    } else {
      this.answeredErrors++;
      if (inWindow) {
        const key = this.opts.errorKey?.(conn.status, body) ?? `HTTP ${conn.status}`;
        this.countError(key, body ? body.toString('utf8', 0, 300) : '');
      }
    }
    queueMicrotask(conn.sendNext);
  }

  failed(conn: Connection, err: Error): void {
    const now = performance.now();
    this.inFlight--;
    this.answered++;
    this.answeredErrors++;
    if (now >= this.measureStart && now <= this.measureEnd) {
      this.answeredInWindow++;
      this.countError(`network ${(err as NodeJS.ErrnoException).code ?? err.name}`, err.message);
    }
    // Do not spin on a server that refuses connections.
    setTimeout(conn.sendNext, 50);
  }

  private countError(key: string, sample: string): void {
    this.errors.set(key, (this.errors.get(key) ?? 0) + 1);
    if (!this.errorSamples.has(key)) this.errorSamples.set(key, sample);
  }

  whenDrained(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.inFlight === 0) return resolve();
      const timer = setTimeout(resolve, timeoutMs);
      this.drained = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** Runs the closed loop: warm-up, then the measured window; prints a progress line a second. */
export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const run = new Run(opts);
  const start = performance.now();
  run.measureStart = start + opts.warmupSeconds * 1000;
  run.measureEnd = run.measureStart + opts.seconds * 1000;
  const conns = Array.from({ length: opts.connections }, (_, i) => new Connection(run, i));
  for (const c of conns) run.send(c);

  // CPU at the window's edges: ours, and whatever the caller meters (server, database).
  const meters: CpuMeter[] = [
    ownCpu('generator'),
    ...(opts.cpuMeters ?? []),
  ];
  let cpuAtStart: Promise<(number | null)[]> | null = null;
  const cpuStart = setTimeout(() => { cpuAtStart = readMeters(meters); }, run.measureStart - performance.now());

  let lastAnswered = 0;
  let lastFirst = 0;
  let lastErrors = 0;
  const progress = setInterval(() => {
    const t = (performance.now() - start) / 1000;
    const answered = run.answered - lastAnswered;
    const first = run.firstOutcome - lastFirst;
    const errors = run.answeredErrors - lastErrors;
    lastAnswered = run.answered;
    lastFirst = run.firstOutcome;
    lastErrors = run.answeredErrors;
    // This line covers the second that just ended.
    const phase = t - 0.5 < opts.warmupSeconds ? 'warm-up' : 'measure';
    process.stderr.write(
      `  [${opts.label} C=${opts.connections}] ${phase} ${fixed(t, 0).padStart(3)} s: ${String(answered).padStart(6)} answers/s` +
        `, ${opts.outcomes[0]} ${fixed((100 * first) / Math.max(1, answered - errors), 0)}%, errors ${errors}\n`,
    );
  }, 1000);

  await new Promise((resolve) => setTimeout(resolve, run.measureEnd - performance.now()));
  run.stopped = true;
  clearTimeout(cpuStart);
  const cpuAtEnd = await readMeters(meters);
  const startValues = (await (cpuAtStart as Promise<(number | null)[]> | null)) ?? meters.map(() => null);
  const cpu: Record<string, number | null> = {};
  meters.forEach((m, i) => {
    const a = startValues[i];
    const b = cpuAtEnd[i];
    cpu[m.name] = a === null || a === undefined || b === null || b === undefined ? null : b - a;
  });
  clearInterval(progress);
  await run.whenDrained(30_000);
  await run.agent.destroy().catch(() => {});

  const decided = run.counts.reduce((a, b) => a + b, 0);
  return {
    label: opts.label,
    connections: opts.connections,
    seconds: opts.seconds,
    counts: run.counts,
    decided,
    rate: decided / opts.seconds,
    errors: run.errors,
    errorSamples: run.errorSamples,
    samples: run.latencies,
    latency: run.latencies.summary(),
    answered: run.answeredInWindow,
    cpu,
  };
}

/** One result from several slices of the same target (counts and latencies pooled). */
export function mergeLoads(parts: LoadResult[]): LoadResult {
  const first = parts[0]!;
  const samples = new Latencies();
  const errors = new Map<string, number>();
  const errorSamples = new Map<string, string>();
  const counts = first.counts.map(() => 0);
  let seconds = 0;
  let answered = 0;
  const cpu: Record<string, number | null> = {};
  for (const p of parts) {
    seconds += p.seconds;
    answered += p.answered;
    for (const [k, v] of Object.entries(p.cpu)) {
      const sum = k in cpu ? cpu[k]! : 0;
      cpu[k] = sum === null || v === null ? null : sum + v;
    }
    p.counts.forEach((n, i) => { counts[i]! += n; });
    samples.addAll(p.samples);
    for (const [k, n] of p.errors) errors.set(k, (errors.get(k) ?? 0) + n);
    for (const [k, v] of p.errorSamples) if (!errorSamples.has(k)) errorSamples.set(k, v);
  }
  const decided = counts.reduce((a, b) => a + b, 0);
  return {
    ...first, seconds, counts, decided, rate: decided / seconds, errors, errorSamples, samples, latency: samples.summary(),
    answered, cpu,
  };
}

/**
 * Runs each target for `seconds` in total, cut into `rounds` slices taken in
 * ABBA order, so load from other work on a shared machine (and any drift) falls
 * on every target alike rather than on whichever ran second.
 */
export async function interleave<T extends string>(
  targets: readonly T[],
  rounds: number,
  seconds: number,
  run: (target: T, seconds: number, round: number) => Promise<LoadResult>,
  /** Runs before every slice, e.g. to put the database back in the same state. */
  beforeSlice?: () => Promise<void>,
): Promise<Record<T, LoadResult>> {
  const parts = new Map<T, LoadResult[]>(targets.map((t) => [t, []]));
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? targets : [...targets].reverse();
    for (const t of order) {
      await beforeSlice?.();
      parts.get(t)!.push(await run(t, seconds / rounds, r));
    }
  }
  return Object.fromEntries(targets.map((t) => [t, mergeLoads(parts.get(t)!)])) as Record<T, LoadResult>;
}

/** Prints a run's error answers (kind, count, a sample body) when there were any. */
export function reportErrors(r: LoadResult): string {
  if (r.errors.size === 0) return '';
  const lines = [`errors of ${r.label} at C=${r.connections} (not counted as decided):`];
  for (const [key, n] of r.errors) lines.push(`  ${String(n).padStart(7)}  ${key}  e.g. ${r.errorSamples.get(key)?.replace(/\s+/g, ' ').slice(0, 200)}`);
  return lines.join('\n');
}
