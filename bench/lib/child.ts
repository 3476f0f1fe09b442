// Child processes for benchmarks: the built service and the bare baseline server.
// Each prints a line naming its port when it listens; the bench waits for it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onCleanup } from './cleanup.js';

/** The repository root (the folder with package.json), from dist/bench/lib or bench/lib. */
export const REPO_ROOT = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    dir = path.dirname(dir);
  }
  throw new Error('package.json not found above the bench');
})();

export interface Child {
  name: string;
  pid: number;
  port: number;
  baseUrl: string;
  /** Lines the child wrote after it was ready (warnings, errors), counted and partly kept. */
  logs: { count: number; last: string[] };
  /** CPU seconds (user + system) the child has used so far; null where /proc is missing. */
  cpuSeconds(): number | null;
  stop(): Promise<void>;
}

const CLOCK_TICKS = 100; // USER_HZ: 100 on every Linux platform Node runs on

/** CPU seconds the whole machine has been busy (all cores, from /proc/stat); null elsewhere. */
export function machineBusySeconds(): number | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
    return (user! + nice! + system! + irq! + softirq! + steal!) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/** utime + stime of a process from /proc/<pid>/stat, in seconds. */
export function processCpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces: fields are counted after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

export interface ChildOptions {
  name: string;
  script: string;
  args?: string[];
  env: Record<string, string>;
  /** Extra node flags, e.g. --cpu-prof. */
  nodeFlags?: string[];
  /** Matches the line that says the child listens; group 1 is the port. */
  ready: RegExp;
  /** Instead of a line: the child listens on this port once GET path answers 200. */
  readyProbe?: { port: number; path: string };
  timeoutMs?: number;
}

const KEEP_LINES = 20;
const ECHO_LINES = 10;

export function startChild(o: ChildOptions): Promise<Child> {
  if (!existsSync(o.script)) throw new Error(`${o.script} does not exist: run npm run build first`);
  const proc: ChildProcess = spawn(process.execPath, [...(o.nodeFlags ?? []), o.script, ...(o.args ?? [])], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : null))));
  const logs = { count: 0, last: [] as string[] };
  const startup: string[] = [];
  let port = 0;
  let onReady: ((port: number) => void) | null = null;

  const onLine = (line: string) => {
    if (!port) {
      startup.push(line);
      const m = o.ready.exec(line);
      if (m) {
        port = Number(m[1]);
        onReady?.(port);
      }
      return;
    }
    logs.count++;
    logs.last.push(line);
    if (logs.last.length > KEEP_LINES) logs.last.shift();
    if (logs.count <= ECHO_LINES) process.stderr.write(`  [${o.name}] ${line.slice(0, 400)}\n`);
    if (logs.count === ECHO_LINES + 1) process.stderr.write(`  [${o.name}] … further lines counted, not shown\n`);
  };
  for (const stream of [proc.stdout!, proc.stderr!]) {
    let buffered = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        onLine(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
      }
    });
  }

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
    })();
    return stopping;
  };
  const unregister = onCleanup(`stop ${o.name}`, stop);

  return new Promise<Child>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${o.name} did not get ready within ${o.timeoutMs ?? 30_000} ms`)), o.timeoutMs ?? 30_000);
    const fail = (err: Error) => {
      clearTimeout(timer);
      void stop().finally(() => reject(new Error(`${err.message}\n${o.name} said:\n  ${startup.slice(-30).join('\n  ')}`)));
    };
    void exited.then((code) => { if (!port) fail(new Error(`${o.name} exited with ${code} before it was ready`)); });
    if (o.readyProbe) {
      const probe = o.readyProbe;
      void (async () => {
        while (!port && proc.exitCode === null) {
          const ok = await fetch(`http://127.0.0.1:${probe.port}${probe.path}`).then((r) => r.ok, () => false);
          if (ok && !port) {
            port = probe.port;
            onReady?.(port);
          }
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
    }
    onReady = (p) => {
      clearTimeout(timer);
      resolve({
        name: o.name,
        pid: proc.pid!,
        port: p,
        baseUrl: `http://127.0.0.1:${p}`,
        logs,
        cpuSeconds: () => processCpuSeconds(proc.pid!),
        stop: () => unregister(),
      });
    };
  });
}

export const ADMIN = { email: 'bench-admin@example.test', password: 'bench-admin-password-1' };

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

/**
 * The built service (dist/src/main.js serve) against databaseUrl, on a free port.
 * Its "serving on" line is logged at info, below the bench's LOG_LEVEL=warn: the
 * bench gives it a port and waits for /healthz instead.
 */
export async function startService(o: { databaseUrl: string; env?: Record<string, string>; nodeFlags?: string[] }): Promise<Child> {
  const port = await freePort();
  return startChild({
    name: 'boxoffice',
    script: path.join(REPO_ROOT, 'dist/src/main.js'),
    args: ['serve'],
    nodeFlags: o.nodeFlags,
    env: {
      DATABASE_URL: o.databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      BOXOFFICE_DEMO: '0',
      BOXOFFICE_ADMIN_EMAIL: ADMIN.email,
      BOXOFFICE_ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_EXEMPT: '127.0.0.1,::1',
      ...o.env,
    },
    ready: /serving on http:\/\/[^\s:]+:(\d+)/,
    readyProbe: { port, path: '/healthz' },
    timeoutMs: 60_000,
  });
}

/** The bare baseline server (bench/lib/bareServer.ts) in one of its modes. */
export function startBare(mode: 'claim' | 'static', env: Record<string, string>, nodeFlags?: string[]): Promise<Child> {
  return startChild({
    name: `bare-${mode}`,
    script: path.join(REPO_ROOT, 'dist/bench/lib/bareServer.js'),
    args: [mode],
    nodeFlags,
    env,
    ready: /bare server listening on (\d+)/,
  });
}

/** Node flags to profile a child when BENCH_CPU_PROF names a directory (or is 1: .bench-out/prof). */
export function profileFlags(label: string): string[] {
  const want = process.env.BENCH_CPU_PROF;
  if (!want || want === '0') return [];
  const dir = want === '1' ? path.join(REPO_ROOT, '.bench-out', 'prof') : path.resolve(want);
  return ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${label}-${Date.now()}.cpuprofile`];
}

/** A TCP proxy (bench/lib/delayProxy.ts) to target that delays every packet by delayMs each way. */
export function startDelayProxy(target: { host: string; port: number }, delayMs: number): Promise<Child> {
  return startChild({
    name: 'delay-proxy',
    script: path.join(REPO_ROOT, 'dist/bench/lib/delayProxy.js'),
    env: { PROXY_TARGET_HOST: target.host, PROXY_TARGET_PORT: String(target.port), PROXY_DELAY_MS: String(delayMs) },
    ready: /delay proxy listening on (\d+)/,
  });
}
