// A throwaway PostgreSQL 15 cluster of a test's own: initdb under a fresh temp
// directory, trust auth, 127.0.0.1 on a port the OS picked, small buffers, fsync
// off. Tests run as root and PostgreSQL refuses root, so initdb and the server run
// as the `postgres` OS user (spawn's uid/gid: the server is our direct child, so
// its pid is the postmaster's and kill -9 reaches it), in a directory it owns.
// stop() is a fast shutdown; kill() is a crash (SIGKILL to the postmaster and every
// backend, as a machine losing power would); start() after either restarts it on
// the same port and data (crash recovery after kill). destroy() stops whatever runs
// and removes the directory.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const BIN = '/usr/lib/postgresql/15/bin';
const START_WAIT_MS = 30_000;
const STOP_WAIT_MS = 15_000;

export interface PgCluster {
  readonly port: number;
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url(database?: string): string;
  /** Starts the server (again) and resolves once it accepts connections. */
  start(): Promise<void>;
  /** Fast shutdown: open transactions roll back, the server exits cleanly. */
  stop(): Promise<void>;
  /** kill -9 of the postmaster and its backends: uncommitted work is lost, recovery runs at the next start. */
  kill(): Promise<void>;
  readonly running: boolean;
  /** Stops the server if it runs and removes the data directory. */
  destroy(): Promise<void>;
}

/** A port nobody listens on now: the OS picks it for a moment's listener. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function ids(user: string): { uid: number; gid: number } {
  return {
    uid: Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim()),
  };
}

/** Pids whose parent is `ppid` (the postmaster's backends and auxiliary processes). */
function childrenOf(ppid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
      const ppidHere = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppidHere === ppid) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(what: string, ms: number, ok: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`pgCluster: ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startCluster(opts: { sharedBuffers?: string; maxConnections?: number } = {}): Promise<PgCluster> {
  const { uid, gid } = ids('postgres');
  const dir = mkdtempSync(join(tmpdir(), 'bo-pgcluster-'));
  const data = join(dir, 'data');
  let server: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let log = '';
  const port = await freePort();
  try {
    chownSync(dir, uid, gid);
    execFileSync(join(BIN, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync'], {
      uid, gid, cwd: dir, stdio: 'pipe', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C' },
    });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  const cluster: PgCluster = {
    port,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    get running() { return server !== null; },
    async start() {
      if (server) return;
      log = '';
      const child = spawn(join(BIN, 'postgres'), [
        '-D', data, '-p', String(port),
        '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`,
        '-c', `shared_buffers=${opts.sharedBuffers ?? '32MB'}`, '-c', `max_connections=${opts.maxConnections ?? 300}`,
        '-c', 'fsync=off', '-c', 'full_page_writes=off',
        '-c', 'logging_collector=off', '-c', 'timezone=UTC',
      ], { uid, gid, cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C' } });
      server = child;
      // A test process that ends without destroy() (a crash, a failed hook) takes the server with it.
      const orphanGuard = () => { try { child.kill('SIGKILL'); } catch { /* gone */ } };
      process.on('exit', orphanGuard);
      // Keep the server's last words for an error message; the pipe must be read or it fills.
      child.stderr?.on('data', (d: Buffer) => { log = (log + d.toString()).slice(-4000); });
      exited = new Promise((resolve) => child.once('exit', () => {
        process.off('exit', orphanGuard);
        if (server === child) server = null;
        resolve();
      }));
      try {
        await until('server accepting connections', START_WAIT_MS, async () => {
          if (server !== child) throw new Error(`pgCluster: postgres exited at start:\n${log}`);
          const c = new pg.Client({ connectionString: cluster.url(), connectionTimeoutMillis: 1000 });
          c.on('error', () => {});
          try {
            await c.connect();
            await c.query('select 1');
            return true;
          } catch {
            return false;
          } finally {
            await c.end().catch(() => {});
          }
        });
      } catch (err) {
        await cluster.kill();
        throw err;
      }
    },
    async stop() {
      const child = server;
      if (!child) return;
      child.kill('SIGINT'); // fast shutdown
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_WAIT_MS);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      const child = server;
      if (!child?.pid) return;
      const backends = childrenOf(child.pid);
      child.kill('SIGKILL');
      for (const pid of backends) {
        try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
      }
      await exited;
      // The backends are not our children: wait until the kernel has reaped them,
      // or a restart finds their shared memory still attached.
      await until('backends gone after kill -9', STOP_WAIT_MS, () => backends.every((p) => !alive(p)));
    },
    async destroy() {
      try {
        await cluster.stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  try {
    await cluster.start();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return cluster;
}
