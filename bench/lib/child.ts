// Child processes for benchmarks: the built service and the bare baseline server
// (the generic parts are @boxoffice/rehearsal's, shared with the rehearsal).
import path from 'node:path';
import { freePort, REPO_ROOT, startChild, type Child } from '@boxoffice/rehearsal';

export { freePort, machineBusySeconds, processCpuSeconds, REPO_ROOT, startChild, type Child, type ChildOptions } from '@boxoffice/rehearsal';

export const ADMIN = { email: 'bench-admin@example.test', password: 'bench-admin-password-1' };

/**
 * The built service (dist/src/main.js serve) against databaseUrl, on a free port.
 * Its "serving on" line is logged at info, below the bench's LOG_LEVEL=warn: the
 * bench gives it a port and waits for /readyz instead (200 once warmed up).
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
    readyProbe: { port, path: '/readyz' },
    timeoutMs: 60_000,
  });
}

/** The bare baseline server (bench/lib/bareServer.ts) in one of its modes. */
export function startBare(mode: 'claim' | 'static' | 'refuse', env: Record<string, string>, nodeFlags?: string[]): Promise<Child> {
  return startChild({
    name: `bare-${mode}`,
    script: path.join(REPO_ROOT, 'dist/bench/lib/bareServer.js'),
    args: [mode],
    nodeFlags,
    env,
    ready: /bare server listening on (\d+)/,
  });
}

/** The bare node:http baseline server (bench/lib/bareHttp.ts, no Fastify) in one of its modes. */
export function startBareHttp(mode: 'claim' | 'static', env: Record<string, string>, nodeFlags?: string[]): Promise<Child> {
  return startChild({
    name: `bare-http-${mode}`,
    script: path.join(REPO_ROOT, 'dist/bench/lib/bareHttp.js'),
    args: [mode],
    nodeFlags,
    env,
    ready: /bare http server listening on (\d+)/,
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
