// `npm run onsale -- --url …` against a service it did not start: it leaves the
// payment simulator's chaos as it found it (it touches it only with --chaos, and then
// puts it back, also when the run fails), takes its show off the public listings at
// the end, stops with a clear message before creating anything when synthetic buyers
// are off, and audits only this service's charges. A few buyers, a few seconds each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Stripe from 'stripe';
import { ADMIN, startTestService, type TestService } from '../support/service.js';
import { audit, cleanup, parseOptions, readBooks, rehearse } from '@boxoffice/rehearsal';

// Found on the simulator before each run; nothing the rehearsal would set itself.
const FOUND_CHAOS = { latency_ms: 0, error_rate: 0, timeout_after_commit_rate: 0, webhook_duplicate_rate: 0, webhook_delay_ms: 7, webhook_reorder: false };

const simUrl = (t: TestService) => `http://127.0.0.1:${(t.simulator!.app.server.address() as AddressInfo).port}`;
const chaosOf = async (t: TestService) => (await fetch(`${simUrl(t)}/_sim/chaos`)).json();
const bank = (t: TestService) => new Stripe('sk_test_sim', { host: '127.0.0.1', port: (t.simulator!.app.server.address() as AddressInfo).port, protocol: 'http' });

describe('the rehearsal against a running service (--url)', () => {
  let on: TestService;
  let off: TestService;
  let reportDir: string;
  const lines: string[] = [];
  const log = (s: string) => { lines.push(s); };

  /** The small preset (chaos on by default) cut to a few buyers who all pay with the happy card. */
  const options = (t: TestService, extra: string[] = []) => parseOptions([
    '--preset', 'small', '--url', t.baseUrl, '--admin-email', ADMIN.email, '--admin-password', ADMIN.password, '--paysim-url', simUrl(t),
    '--buyers', '6', '--seats', '20', '--arrival-seconds', '0', '--no-waiting-room', '--abandon-rate', '0', '--decline-rate', '0', '--slow-rate', '0',
    '--timeout-rate', '0', '--max-seconds', '20', '--settle-seconds', '15', '--seed', '7', '--report-dir', reportDir, ...extra,
  ], {});

  const listedEvents = async (t: TestService) => ((await t.http.get('/v1/events')).body.events as { title: string }[]).map((e) => e.title);
  const adminEvents = async (t: TestService) => ((await t.http.get('/v1/admin/events', t.adminToken)).body.events as { title: string }[]).map((e) => e.title);

  beforeAll(async () => {
    reportDir = mkdtempSync(path.join(os.tmpdir(), 'onsale-url-'));
    on = await startTestService({ payments: { chaos: FOUND_CHAOS }, config: { syntheticBuyers: true } });
    off = await startTestService({ payments: { chaos: FOUND_CHAOS }, config: { syntheticBuyers: false } });
  });

  afterAll(async () => {
    await cleanup();
    await on?.close();
    await off?.close();
    if (reportDir) rmSync(reportDir, { recursive: true, force: true });
  });

  it('leaves chaos alone without --chaos, closes its show, and reports a charge another client made apart from its audit', async () => {
    const foreign = await bank(on).paymentIntents.create({
      amount: 4200, currency: 'eur', payment_method: 'pm_card_visa', confirm: true, metadata: { booking_id: 'bkg_not_this_service', hold_id: 'hld_not_this_service' },
    });
    expect(foreign.status).toBe('succeeded');
    lines.length = 0;
    const r = await rehearse(options(on), log);
    expect(lines.filter((l) => l.includes('chaos'))).toEqual([]);
    expect(await chaosOf(on)).toEqual(FOUND_CHAOS);
    expect(r.rec.totals.bookings).toBeGreaterThan(0);

    expect(r.audit.checks.filter((c) => c.count > 0)).toEqual([]);
    expect(r.audit.ok).toBe(true);
    expect(r.audit.foreign).toEqual({ count: 1, succeeded: 1, amounts: { EUR: 4200 }, examples: [`${foreign.id} (booking bkg_not_this_service)`] });
    expect(readFileSync(path.join(reportDir, 'report.md'), 'utf8')).toContain('charges not made by this service: 1 (1 succeeded, 42.00 EUR;');

    // Its event was made, and its show no longer on sale nor listed.
    expect(await adminEvents(on)).toContain('On-sale rehearsal small');
    expect(await listedEvents(on)).toEqual([]);
    expect((await on.http.get('/v1/shows')).body.shows).toEqual([]);

    // A charge naming one of this service's bookings is still audited: a second one for a confirmed booking fails it.
    const own = on.simulator!.ctx.store.paymentIntents.all().find((pi) => pi.status === 'succeeded' && pi.metadata.booking_id !== 'bkg_not_this_service')!;
    const second = await bank(on).paymentIntents.create({ amount: own.amount, currency: 'eur', payment_method: 'pm_card_visa', confirm: true, metadata: { ...own.metadata } });
    const books = () => readBooks({ baseUrl: on.baseUrl, paysimUrl: simUrl(on), admin: on.adminToken, showIds: [], holds: [], bookings: [] });
    const again = audit(await books());
    expect(again.ok).toBe(false);
    expect(again.checks.filter((c) => c.count > 0).map((c) => c.name)).toEqual(['bookings charged twice']);
    expect(again.foreign.count).toBe(1);
    // Refunded, the books agree again (the next rehearsal on this simulator reads them too).
    await bank(on).refunds.create({ payment_intent: second.id });
    expect(audit(await books()).ok).toBe(true);
  }, 90_000);

  it('with --chaos, puts the chaos it found back after the run, and after a run that fails', async () => {
    lines.length = 0;
    const r = await rehearse(options(on, ['--chaos']), log);
    expect(lines.some((l) => l.startsWith('payment chaos on'))).toBe(true);
    expect(await chaosOf(on)).toEqual(FOUND_CHAOS);
    expect(r.audit.checks.filter((c) => c.count > 0)).toEqual([]);

    // A hall over 100,000 seats is refused after the chaos was set.
    await expect(rehearse(options(on, ['--chaos', '--seats', '100020']), log)).rejects.toThrow(/halls: expected 201, got 400/);
    expect(await chaosOf(on)).toEqual(FOUND_CHAOS);
  }, 90_000);

  it('stops before creating anything when synthetic buyers are off, saying how to start the service', async () => {
    const failure = rehearse(options(off), log);
    await expect(failure).rejects.toThrow(/BOXOFFICE_SYNTHETIC_BUYERS=1/);
    await expect(failure).rejects.toThrow(/RATE_LIMIT_EXEMPT/);
    expect(await adminEvents(off)).toEqual([]);
    expect(await chaosOf(off)).toEqual(FOUND_CHAOS);
  }, 30_000);
});
