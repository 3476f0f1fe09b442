// The first hour of an operator on the embedded default: the first start makes a
// demo admin and shows its password once; later starts never show it again;
// `npm run admin -- create EMAIL` makes real admins; two processes never share
// one PGlite folder.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { openService, type Service } from '../../src/service.js';
import { adminCommand, announceAdmins } from '../../src/cli/admin.js';
import { openPglite } from '../../src/db/client.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'bo-first-start-'));
const config = { ...loadConfig({}), dataDir, port: 0, seedDemo: false, stripeSecretKey: 'sk_test_sim', stripeApiUrl: 'http://127.0.0.1:9' };

async function startOutput(): Promise<{ service: Service; lines: string[] }> {
  const service = await openService(config);
  const lines: string[] = [];
  await announceAdmins(service.ctx, (m) => lines.push(m));
  return { service, lines };
}

async function signIn(service: Service, email: string, password: string) {
  const r = await service.app.inject({ method: 'POST', url: '/v1/sessions', payload: { email, password } });
  return { status: r.statusCode, body: r.json() as { role?: string; code?: string } };
}

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the demo admin of the embedded default', () => {
  let demo: { email: string; password: string };

  beforeAll(async () => {
    const { service, lines } = await startOutput();
    try {
      const text = lines.join('\n');
      expect(text).toMatch(/DEMO CREDENTIAL/);
      const email = /admin e-mail:\s+(\S+)/.exec(text)?.[1];
      const password = /admin password:\s+(\S+)/.exec(text)?.[1];
      expect(email && password, text).toBeTruthy();
      demo = { email: email!, password: password! };
      expect(demo.password.length).toBeGreaterThanOrEqual(16);
    } finally {
      await service.close();
    }
  });

  it('signs in as admin with the printed credential', async () => {
    const service = await openService(config);
    try {
      const r = await signIn(service, demo.email, demo.password);
      expect(r.status).toBe(200);
      expect(r.body.role).toBe('admin');
    } finally {
      await service.close();
    }
  });

  it('a second start does not show the credential again, and says an admin exists', async () => {
    const { service, lines } = await startOutput();
    await service.close();
    const text = lines.join('\n');
    expect(text).not.toContain(demo.password);
    expect(text).not.toMatch(/DEMO CREDENTIAL|password/i);
    expect(text).toMatch(/1 admin account exists/);
  });

  it('npm run admin -- create EMAIL makes a real admin with the password it reads', async () => {
    const service = await openService(config);
    try {
      const said: string[] = [];
      await adminCommand(service, ['create', 'ops@cinema.example'], (m) => said.push(m), async () => 'a-long-password');
      expect(said.join('\n')).toMatch(/ops@cinema\.example is an admin/);
      expect(said.join('\n')).not.toContain('a-long-password');
      const r = await signIn(service, 'ops@cinema.example', 'a-long-password');
      expect(r.body.role).toBe('admin');
      await expect(adminCommand(service, ['create', 'x@cinema.example'], () => {}, async () => 'short')).rejects.toThrow(/8 characters/);
      await expect(adminCommand(service, ['create'], () => {}, async () => 'a-long-password')).rejects.toThrow(/usage/);
      expect((await signIn(service, 'x@cinema.example', 'whatever-password')).status).toBe(401);
    } finally {
      await service.close();
    }
  });

  it('a configured database or admin gets no demo admin', async () => {
    const other = mkdtempSync(path.join(tmpdir(), 'bo-first-start-configured-'));
    const service = await openService({ ...config, dataDir: other, adminEmail: 'boss@cinema.example', adminPassword: 'boss-password-1' });
    try {
      const lines: string[] = [];
      await announceAdmins(service.ctx, (m) => lines.push(m));
      expect(lines.join('\n')).toMatch(/admin account boss@cinema\.example is ready/);
      expect(lines.join('\n')).not.toMatch(/DEMO CREDENTIAL/);
    } finally {
      await service.close();
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe('one process per PGlite folder', () => {
  it('refuses a folder locked by a live process and takes over one left by a dead process', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bo-lock-'));
    try {
      // A live process that is not us: our parent (the test runner's).
      writeFileSync(path.join(dir, 'boxoffice.lock'), String(process.ppid));
      await expect(openPglite(dir)).rejects.toThrow(new RegExp(`in use by process ${process.ppid}`));
      const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
      writeFileSync(path.join(dir, 'boxoffice.lock'), String(gone));
      const db = await openPglite(dir);
      await db.close();
      const again = await openPglite(dir);
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
