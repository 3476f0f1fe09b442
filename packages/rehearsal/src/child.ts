// Child processes: the built service (or another built script) started, watched and
// stopped by a benchmark or the rehearsal. Each prints a line naming its port when it
// listens (or answers a probe); the caller waits for it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onCleanup } from './cleanup.js';
import { stderrLines } from './terminal.js';

/** The repository root (the folder whose package.json names the workspaces), from packages/rehearsal/dist or src. */
export const REPO_ROOT = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && 'workspaces' in (JSON.parse(readFileSync(manifest, 'utf8')) as object)) return dir;
    dir = path.dirname(dir);
  }
  throw new Error('the workspace root (package.json with "workspaces") was not found above this file');
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
    if (logs.count <= ECHO_LINES) stderrLines.note(line.slice(0, 400), o.name);
    if (logs.count === ECHO_LINES + 1) stderrLines.note('… further lines counted, not shown', o.name);
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
    // A last line without its newline (a child that died mid-write) is still a line.
    stream.on('end', () => {
      if (buffered !== '') onLine(buffered);
      buffered = '';
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

