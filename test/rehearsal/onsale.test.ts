// Every change is rehearsed: the small preset (2,000 buyers, 200 seats, a waiting
// room, payment chaos on) against the built service on the real PostgreSQL, in a
// fresh database. The sale must sell (nearly) out and the audit must be clean.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { ensureBuild } from '../resilience/childService.js';
import { cleanup, headline, parseOptions, rehearse } from '@boxoffice/rehearsal';

describe('the on-sale rehearsal, small preset', () => {
  let db: TestDatabase;
  let reportDir: string;
  let entry: string;

  beforeAll(async () => {
    entry = ensureBuild((s) => process.stdout.write(`[onsale] ${s}\n`));
    db = await createTestDatabase();
    reportDir = mkdtempSync(path.join(os.tmpdir(), 'onsale-report-'));
  }, 180_000);

  afterAll(async () => {
    await cleanup();
    await db?.drop();
    if (reportDir) rmSync(reportDir, { recursive: true, force: true });
  });

  it('sells the show through the waiting room with chaos on, and the audit is clean', async () => {
    const opts = {
      ...parseOptions(['--preset', 'small', '--seed', '4242', '--report-dir', reportDir], {}),
      // Lost answers are known sooner: the booking waits 3 s for the provider, the reconciler starts at 200 ms.
      serviceEnv: { DATABASE_URL: db.url, PAYMENT_TIMEOUT_MS: '3000', RECONCILE_BASE_MS: '200' },
    };
    const r = await rehearse(opts, (s) => process.stdout.write(`[onsale] ${s}\n`), entry);
    const h = headline(r);
    process.stdout.write(`[onsale] sold ${h.sold}/${h.totalSeats}, holds ${r.rec.totals.holds}, 409s ${r.rec.totals.conflicts}, admitted ${r.rec.totals.admitted}, ` +
      `waiting list ${r.rec.totals.waitlisted} joined, ${r.rec.totals.offers} offers, ` +
      `${r.charges} charges, ${r.refunds} refunds, audit ${JSON.stringify(r.audit.checks.map((c) => c.count))}\n`);
    expect(r.audit.checks.filter((c) => c.count > 0)).toEqual([]);
    expect(r.audit.ok).toBe(true);
    expect(r.rec.totals.admitted).toBeGreaterThan(0);
    expect(r.rec.totals.bookings).toBeGreaterThan(0);
    // Buyers who found it sold out with seats still held went onto its waiting list (30 % of them).
    expect(r.rec.totals.waitlisted).toBeGreaterThan(0);
    expect(h.sold).toBeGreaterThanOrEqual(0.9 * h.totalSeats);
    expect(r.charges).toBeGreaterThanOrEqual(r.rec.totals.bookings);
    const report = readFileSync(path.join(reportDir, 'report.md'), 'utf8');
    expect(report).toContain('| audit | **clean** |');
    expect(readFileSync(path.join(reportDir, 'controller.svg'), 'utf8')).toContain('<polyline');
  }, 150_000);
});
