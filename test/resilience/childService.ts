// The built service (`node <build>/src/main.js serve`) as a child process that a
// test can SIGKILL and start again on the same port and database. Not a test file.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** A private build, so a test never races another build of dist/ on a shared machine. */
export const BUILD_DIR = path.join(ROOT, 'node_modules', '.cache', 'boxoffice-resilience', 'dist');
const STAMP = path.join(BUILD_DIR, '.built-at');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** Compiles src/ with the project's tsconfig into BUILD_DIR unless that build is newer than every source file. */
export function ensureBuild(log: (s: string) => void = () => {}): string {
  const main = path.join(BUILD_DIR, 'src', 'main.js');
  const sources = Math.max(newestMtime(path.join(ROOT, 'src')), statSync(path.join(ROOT, 'tsconfig.json')).mtimeMs);
  // The service finds migrations/ by walking up a few folders from its own file.
  const migrations = path.join(BUILD_DIR, 'migrations');
  mkdirSync(BUILD_DIR, { recursive: true });
  if (!existsSync(migrations)) symlinkSync(path.join(ROOT, 'migrations'), migrations, 'dir');
  const built = existsSync(STAMP) && existsSync(main) ? Number(readFileSync(STAMP, 'utf8')) : 0;
  if (built > sources) return main;
  const started = Date.now();
  mkdirSync(BUILD_DIR, { recursive: true });
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json', '--outDir', BUILD_DIR], { cwd: ROOT, stdio: 'pipe' });
  writeFileSync(STAMP, String(Date.now()));
  log(`built the service into ${path.relative(ROOT, BUILD_DIR)} in ${Date.now() - started} ms`);
  return main;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

class EarlyExit extends Error {}

export class ChildService {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  starts = 0;
  failedStarts = 0;
  /** Exits nobody asked for (the service died by itself while serving). */
  readonly unexpectedExits: string[] = [];
  private killing = false;
  kills = 0;
  readonly baseUrl: string;

  constructor(private readonly mainJs: string, readonly port: number, private readonly env: Record<string, string>, readonly logFile: string) {
    this.baseUrl = `http://127.0.0.1:${port}`;
    writeFileSync(logFile, '');
    // Never leave a service behind when the test process goes away.
    process.once('exit', () => { this.child?.kill('SIGKILL'); });
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /**
   * Starts the service and waits until GET /readyz answers 200. A start that
   * dies early (e.g. "too many clients" on a PostgreSQL shared with other test
   * runs) is retried after a pause; such retries are counted in failedStarts.
   */
  async start(readyTimeoutMs = 60_000): Promise<number> {
    const started = Date.now();
    for (;;) {
      try {
        await this.startOnce(started + readyTimeoutMs);
        return Date.now() - started;
      } catch (err) {
        if (!(err instanceof EarlyExit) || Date.now() - started > readyTimeoutMs) throw err;
        this.failedStarts++;
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
    let gone = false;
    let ready = false;
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => {
      gone = true;
      if (ready && !this.killing) this.unexpectedExits.push(`pid ${child.pid} exited by itself (code ${code}, signal ${signal})`);
      resolve();
    }));
    while (Date.now() < deadline) {
      if (gone) {
        this.child = null;
        throw new EarlyExit(`the service exited while starting; log tail:\n${this.logTail()}`);
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
