// The service under rehearsal: one the rehearsal starts (the built service as a
// child process, on PostgreSQL when DATABASE_URL is set, else embedded on PGlite in
// a throwaway data folder, with its bundled payment simulator), or one already
// running (--url, --admin-email, --admin-password, --paysim-url).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, REPO_ROOT, startChild, type Child } from './child.js';
import { onCleanup } from './cleanup.js';
import type { Options } from './options.js';

export interface ServiceUnderTest {
  baseUrl: string;
  paysimUrl: string;
  admin: { email: string; password: string };
  /** What the report says about it: "started on PostgreSQL", "running at …". */
  description: string;
  /** The child process, when the rehearsal started it (for its CPU seconds). */
  child: Child | null;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function serviceUnderTest(o: Readonly<Options>, log: (s: string) => void, entry = path.join(REPO_ROOT, 'dist/src/main.js')): Promise<ServiceUnderTest> {
  if (o.url) {
    return {
      baseUrl: o.url.replace(/\/$/, ''), paysimUrl: o.paysimUrl!.replace(/\/$/, ''),
      admin: { email: o.adminEmail!, password: o.adminPassword! }, description: `already running at ${o.url}`, child: null, stop: async () => {},
    };
  }
  const port = await freePort();
  const paysimPort = await freePort();
  const admin = { email: 'rehearsal-admin@boxoffice.invalid', password: randomBytes(18).toString('base64url') };
  const databaseUrl = o.serviceEnv.DATABASE_URL || process.env.DATABASE_URL || null;
  const env: Record<string, string> = {
    HOST: '127.0.0.1', PORT: String(port), PAYSIM_PORT: String(paysimPort), BOXOFFICE_DEMO: '0', LOG_LEVEL: 'warn',
    BOXOFFICE_ADMIN_EMAIL: admin.email, BOXOFFICE_ADMIN_PASSWORD: admin.password, BOXOFFICE_TOKEN_SECRET: randomBytes(32).toString('base64url'),
    BOXOFFICE_SYNTHETIC_BUYERS: '1',
    // The contract's knob for rehearsals: no 429s for the buyers on loopback; overload 503s still apply.
    RATE_LIMIT_EXEMPT: '127.0.0.0/8,::1',
    WAITING_ROOM_ADMIT_PER_MINUTE: String(o.admitPerMinute),
    // Keys of their own, should REDIS_URL name a Redis that others use too.
    RATE_LIMIT_PREFIX: `bo_onsale:${randomBytes(6).toString('hex')}`,
    WAITING_ROOM_PREFIX: `bo_onsale_wr:${randomBytes(6).toString('hex')}`,
    ...o.serviceEnv,
  };
  let dataDir: string | null = null;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'boxoffice-onsale-'));
    env.DATA_DIR = dataDir;
    onCleanup(`remove ${dataDir}`, () => rmSync(dataDir!, { recursive: true, force: true }));
  }
  log(`starting the service (${databaseUrl ? 'PostgreSQL at DATABASE_URL' : `embedded PGlite in ${dataDir}`}) on port ${port}, payment simulator on ${paysimPort}…`);
  const child = await startChild({
    name: 'boxoffice', script: entry, args: ['serve'], env, ready: /serving on http:\/\/[^\s:]+:(\d+)/, readyProbe: { port, path: '/readyz' }, timeoutMs: 120_000,
  });
  const paysimUrl = `http://127.0.0.1:${paysimPort}`;
  // The service listens only once its bundled simulator does; this bounds the wait should that ever change.
  for (let i = 0; !(await fetch(`${paysimUrl}/_sim/health`).then((r) => r.ok, () => false)); i++) {
    if (i > 300) throw new Error('the bundled payment simulator did not start within 30 s');
    await sleep(100);
  }
  return {
    baseUrl: child.baseUrl, paysimUrl, admin, child,
    description: `started by the rehearsal (${databaseUrl ? 'PostgreSQL' : 'embedded PGlite'}, pid ${child.pid})`,
    stop: () => child.stop(),
  };
}
