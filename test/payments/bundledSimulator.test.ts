// `npm start` with the bundled simulator's port taken: the built service must refuse
// to start (a clear message, a non-zero exit) without ever answering on its own port,
// so that no booking is paid through whatever holds that port (another instance's
// simulator, whose webhooks go to the other service).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { ensureBuild, freePort } from '../resilience/childService.js';
import { buildSimulator, type Simulator } from '@boxoffice/paysim';

const EXIT_WITHIN_MS = 20_000;

interface StartOutcome { code: number | null; output: string; answeredOnItsPort: boolean; ms: number }

/** Starts `node main.js serve` with PAYSIM_PORT taken; watches its own port until it exits (or the bound passes, then kills it). */
async function startWithPaysimPort(mainJs: string, databaseUrl: string, paysimPort: number): Promise<StartOutcome> {
  const port = await freePort();
  const started = Date.now();
  const child = spawn(process.execPath, [mainJs, 'serve'], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), PAYSIM_PORT: String(paysimPort), DATABASE_URL: databaseUrl, BOXOFFICE_DEMO: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => { output += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { output += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => { gone = true; });
  let answeredOnItsPort = false;
  while (!gone && Date.now() - started < EXIT_WITHIN_MS) {
    if (await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(500) }).then(() => true, () => false)) answeredOnItsPort = true;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!gone) child.kill('SIGKILL');
  const code = await exited;
  return { code: gone ? code : null, output, answeredOnItsPort, ms: Date.now() - started };
}

describe('npm start with the payment simulator port taken', () => {
  let mainJs: string;
  let db: TestDatabase;
  let otherSimulator: Simulator;
  let otherPort: number;
  let stranger: http.Server;
  let strangerPort: number;

  beforeAll(async () => {
    mainJs = ensureBuild((s) => process.stdout.write(`[bundled simulator] ${s}\n`));
    db = await createTestDatabase();
    otherSimulator = await buildSimulator({ logger: false });
    await otherSimulator.app.listen({ host: '127.0.0.1', port: 0 });
    otherPort = (otherSimulator.app.server.address() as AddressInfo).port;
    stranger = http.createServer((_req, res) => res.writeHead(404).end('not here'));
    await new Promise<void>((r) => stranger.listen(0, '127.0.0.1', r));
    strangerPort = (stranger.address() as AddressInfo).port;
  }, 180_000);

  afterAll(async () => {
    await otherSimulator?.close();
    await new Promise((r) => stranger?.close(r));
    await db?.drop();
  });

  it('refuses to start when another payment simulator holds the port, and never serves', async () => {
    const r = await startWithPaysimPort(mainJs, db.url, otherPort);
    process.stdout.write(`[bundled simulator] exit ${r.code} after ${r.ms} ms; answered on its port: ${r.answeredOnItsPort}\n${r.output}\n`);
    expect(r.code).not.toBe(null);
    expect(r.code).not.toBe(0);
    expect(r.answeredOnItsPort).toBe(false);
    expect(r.output).toContain(`127.0.0.1:${otherPort} is taken by another payment simulator`);
    expect(r.output).toContain('PAYSIM_PORT=');
    expect(r.output).toContain(`STRIPE_SECRET_KEY=sk_test_sim STRIPE_API_URL=http://127.0.0.1:${otherPort}`);
    // Nothing was charged through the other instance's simulator.
    expect(otherSimulator.ctx.store.paymentIntents.size).toBe(0);
  }, 60_000);

  it('refuses to start when something else holds the port', async () => {
    const r = await startWithPaysimPort(mainJs, db.url, strangerPort);
    process.stdout.write(`[bundled simulator] exit ${r.code} after ${r.ms} ms; answered on its port: ${r.answeredOnItsPort}\n${r.output}\n`);
    expect(r.code).not.toBe(null);
    expect(r.code).not.toBe(0);
    expect(r.answeredOnItsPort).toBe(false);
    expect(r.output).toContain(`127.0.0.1:${strangerPort} is taken by a program that is not a payment simulator`);
    expect(r.output).toContain('PAYSIM_PORT=');
    expect(r.output).not.toContain('STRIPE_API_URL=');
  }, 60_000);

  it('with its port free, listens first and sends webhooks to the service once the service listens', async () => {
    const [port, paysimPort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, [mainJs, 'serve'], {
      env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), PAYSIM_PORT: String(paysimPort), DATABASE_URL: db.url, BOXOFFICE_DEMO: '0', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      type Health = { webhooks: { endpoint: string | null } };
      let health = null as Health | null;
      for (const until = Date.now() + 60_000; Date.now() < until && child.exitCode === null; await new Promise((r) => setTimeout(r, 100))) {
        const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false);
        if (!ready) continue;
        health = await (await fetch(`http://127.0.0.1:${paysimPort}/_sim/health`)).json() as Health;
        if (health?.webhooks.endpoint) break;
      }
      expect(health?.webhooks.endpoint).toBe(`http://127.0.0.1:${port}/v1/payments/webhook`);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    // The simulator went with the service.
    for (let i = 0; i < 50 && await fetch(`http://127.0.0.1:${paysimPort}/_sim/health`).then(() => true, () => false); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await fetch(`http://127.0.0.1:${paysimPort}/_sim/health`).then(() => true, () => false)).toBe(false);
  }, 90_000);
});
