// The built service (`node <build>/src/main.js serve`) as a child process that a
// test can SIGKILL and start again on the same port and database. Not a test file.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/**
 * A private build of this checkout, so a test never races another build of dist/
 * on a shared machine. Keyed by the checkout: worktrees may share one node_modules
 * (a link), and must not run each other's builds. Under node_modules so that the
 * build finds its packages.
 */
export const BUILD_DIR = path.join(ROOT, 'node_modules', '.cache', 'boxoffice-resilience', createHash('sha256').update(ROOT).digest('hex').slice(0, 16), 'dist');
const STAMP = path.join(BUILD_DIR, '.built-at');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/**
 * Compiles src/ with the project's tsconfig into BUILD_DIR unless that build is newer
 * than every source file, and the payment simulator the service bundles
 * (packages/paysim) beside it, as BUILD_DIR/node_modules/@boxoffice/paysim: the
 * build's `import '@boxoffice/paysim'` finds that one first.
 */
export function ensureBuild(log: (s: string) => void = () => {}): string {
  const main = path.join(BUILD_DIR, 'src', 'main.js');
  const paysim = path.join(ROOT, 'packages', 'paysim');
  const sources = Math.max(newestMtime(path.join(ROOT, 'src')), newestMtime(path.join(paysim, 'src')), statSync(path.join(ROOT, 'tsconfig.json')).mtimeMs);
  // The service finds migrations/ by walking up a few folders from its own file.
  const migrations = path.join(BUILD_DIR, 'migrations');
  mkdirSync(BUILD_DIR, { recursive: true });
  if (!existsSync(migrations)) symlinkSync(path.join(ROOT, 'migrations'), migrations, 'dir');
  const built = existsSync(STAMP) && existsSync(main) ? Number(readFileSync(STAMP, 'utf8')) : 0;
  if (built > sources) return main;
  const started = Date.now();
  mkdirSync(BUILD_DIR, { recursive: true });
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const paysimBuild = path.join(BUILD_DIR, 'node_modules', '@boxoffice', 'paysim');
  execFileSync(process.execPath, [tsc, '-p', path.join(paysim, 'tsconfig.json'), '--outDir', path.join(paysimBuild, 'dist')], { cwd: ROOT, stdio: 'pipe' });
  copyFileSync(path.join(paysim, 'package.json'), path.join(paysimBuild, 'package.json'));
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json', '--outDir', BUILD_DIR], { cwd: ROOT, stdio: 'pipe' });
  writeFileSync(STAMP, String(Date.now()));
  log(`built the service into ${path.relative(ROOT, BUILD_DIR)} in ${Date.now() - started} ms`);
  return main;
}

/** The kernel's range of ephemeral ports, from which outgoing connections take their local port. */
function ephemeralPorts(): [number, number] {
  try {
    const [lo, hi] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (lo && hi) return [lo, hi];
  } catch {
    // not Linux: the IANA range
  }
  return [49152, 65535];
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * A free port below the ephemeral range, for a service that is killed and
 * started again on it. While the service is down, a port from the ephemeral
 * range can be taken as the local end of an outgoing connection (the buyers',
 * the database pool's, the simulator's webhooks), or a buyer's connect to it can
 * connect to itself; either makes the restart fail with EADDRINUSE.
 */
export async function freePort(): Promise<number> {
  const [ephemeralLow] = ephemeralPorts();
  const low = 10_000;
  const high = Math.max(low + 1000, ephemeralLow) - 1;
  for (let tries = 0; tries < 100; tries++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (await portIsFree(port)) return port;
  }
  throw new Error(`no free port in ${low}-${high}`);
}

class EarlyExit extends Error {
  constructor(message: string, readonly reason: string) {
    super(message);
  }
}

export class ChildService {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  starts = 0;
  /** Starts that died before getting ready, each with the reason from its log. */
  readonly failedStarts: string[] = [];
  /** Exits nobody asked for (the service died by itself while serving). */
  readonly unexpectedExits: string[] = [];
  private killing = false;
  kills = 0;
  readonly baseUrl: string;

  constructor(private readonly mainJs: string, readonly port: number, private readonly env: Record<string, string>, readonly logFile: string) {
    this.baseUrl = `http://127.0.0.1:${port}`;
    writeFileSync(logFile, '');
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /**
   * Starts the service and waits until GET /readyz answers 200. A start that
   * dies early is recorded in failedStarts with its reason (the test asserts
   * there is none) and tried again after a pause, so that the test still runs
   * to the end and reports everything else it finds.
   */
  async start(readyTimeoutMs = 60_000): Promise<number> {
    const started = Date.now();
    for (;;) {
      try {
        await this.startOnce(started + readyTimeoutMs);
        return Date.now() - started;
      } catch (err) {
        if (!(err instanceof EarlyExit)) throw err;
        this.failedStarts.push(`start ${this.starts}: ${err.reason}`);
        if (Date.now() - started > readyTimeoutMs) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  private async startOnce(deadline: number): Promise<void> {
    if (this.child) throw new Error('already running');
    const fd = openSync(this.logFile, 'a');
    const child = spawn(process.execPath, [this.mainJs, 'serve'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', RATE_LIMIT_EXEMPT: '127.0.0.1,::1', ...this.env, PORT: String(this.port), HOST: '127.0.0.1' },
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    this.child = child;
    this.starts++;
    // Never leave a service behind when the test process goes away; once it has
    // gone, the listener goes too (the test's worker goes on to other files).
    const killOnExit = () => child.kill('SIGKILL');
    process.once('exit', killOnExit);
    let gone = false;
    let ready = false;
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => {
      process.off('exit', killOnExit);
      gone = true;
      if (ready && !this.killing) this.unexpectedExits.push(`pid ${child.pid} exited by itself (code ${code}, signal ${signal})`);
      resolve();
    }));
    while (Date.now() < deadline) {
      if (gone) {
        this.child = null;
        const tail = this.logTail(20);
        const reason = tail.split('\n').reverse().find((l) => /error|fail|EADDRINUSE|too many/i.test(l)) ?? tail.trim().split('\n').pop() ?? '(empty log)';
        throw new EarlyExit(`the service exited while starting; log tail:\n${tail}`, reason.slice(0, 400));
      }
      try {
        const r = await request(`${this.baseUrl}/readyz`, { headersTimeout: 1000, bodyTimeout: 1000 });
        await r.body.text();
        if (r.statusCode === 200) {
          ready = true;
          return;
        }
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`the service did not get ready in time; log tail:\n${this.logTail()}`);
  }

  /** SIGKILL: no shutdown hook runs, requests in flight die mid-way. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.killing = true;
    child.kill('SIGKILL');
    this.kills++;
    await this.exited;
    this.killing = false;
    this.child = null;
  }

  /** Graceful stop for the end of a test. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.killing = true;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(timer);
    this.child = null;
  }

  /** Log lines at level error or fatal (pino levels 50, 60), and a few of them. */
  logErrors(samples = 5): { count: number; samples: string[] } {
    let text = '';
    try { text = readFileSync(this.logFile, 'utf8'); } catch { return { count: 0, samples: [] }; }
    const lines = text.split('\n').filter((l) => /"level":(50|60)/.test(l) || /failed to start/.test(l));
    return { count: lines.length, samples: lines.slice(0, samples).map((l) => l.slice(0, 600)) };
  }

  logTail(lines = 40): string {
    try {
      return readFileSync(this.logFile, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }
}
