// `npm start` as shipped (the built service on embedded PGlite under DATA_DIR, paying
// through its bundled simulator): bookings paid before the service is killed with
// SIGKILL are cancelled after it starts again, one through the API and one in the
// browser, and both are refunded — the simulator kept its books under DATA_DIR/paysim.
// Before it did, the refund ended `failed` and the page said "please contact us".
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { ChildService, ensureBuild, freePort } from '../resilience/childService.js';
import { HttpClient } from '../support/http.js';
import { ADMIN, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { describeInBrowser, launchBrowser, openPage, screenshotBoth } from '../support/browser.js';
import { confirmedBooking, until } from '../bookings/helpers.js';
import { signInTab } from '../web/buyerSession.js';

let dataDir: string;
let service: ChildService;
let paysimPort: number;
let browser: Browser;
const say = (s: string) => process.stdout.write(`[refund after restart] ${s}\n`);

const paysimAnswers = () => fetch(`http://127.0.0.1:${paysimPort}/_sim/health`).then(() => true, () => false);

describeInBrowser('a booking paid before a restart of npm start', () => {
  beforeAll(async () => {
    const mainJs = ensureBuild(say);
    dataDir = mkdtempSync(path.join(tmpdir(), 'boxoffice-restart-'));
    paysimPort = await freePort();
    service = new ChildService(mainJs, await freePort(), {
      DATA_DIR: dataDir,
      PAYSIM_PORT: String(paysimPort),
      BOXOFFICE_DEMO: '0',
      BOXOFFICE_ADMIN_EMAIL: ADMIN.email,
      BOXOFFICE_ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'warn',
    }, path.join(tmpdir(), `boxoffice-refund-after-restart-${process.pid}.log`));
    say(`first start in ${await service.start(120_000)} ms`);
    browser = await launchBrowser();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('is refunded when cancelled after it, through the API and in the browser', async () => {
    const http = new HttpClient(service.baseUrl);
    const session = await http.post('/v1/sessions', ADMIN);
    expect(session.status).toBe(200);
    const t = { http, adminToken: session.body.token as string } as unknown as TestService;
    const show = await createShow(t);
    const [buyer] = (await registerBuyers(t, 1)) as [Buyer];
    const byApi = await confirmedBooking(t, show.showId, ['A1', 'A2'], buyer.token);
    const inBrowser = await confirmedBooking(t, show.showId, ['B1'], buyer.token);

    // No shutdown hook runs; the simulator stops when its IPC channel to the service closes.
    await service.kill();
    await until('the bundled simulator stopped', async () => !(await paysimAnswers()), 10_000);
    say(`restarted in ${await service.start(120_000)} ms`);

    const cancelled = await http.post(`/v1/bookings/${byApi.booking_id}/cancel`, {}, buyer.token);
    expect(cancelled.status, cancelled.text).toBe(200);
    const refund = await until('the refund settled', async () => {
      const r = await http.get(`/v1/bookings/${byApi.booking_id}`, buyer.token);
      const status = (r.body.refund as { status?: string } | undefined)?.status;
      return status === 'succeeded' || status === 'failed' ? r.body.refund as { status: string; amount: number } : null;
    }, 60_000);
    expect(refund).toEqual({ status: 'succeeded', amount: 2000 });

    const { page, errors, context } = await openPage(browser, service.baseUrl);
    await signInTab(page, buyer);
    await page.goto(`/bookings/${inBrowser.booking_id}`);
    await page.getByRole('button', { name: 'Cancel booking' }).click();
    await page.getByRole('button', { name: 'Yes, cancel booking' }).click();
    await page.getByText('Cancelled', { exact: true }).waitFor();
    const refunded = page.getByText('Refund of €10.00: refunded');
    const contactUs = page.getByText(/please contact us/);
    await refunded.or(contactUs).first().waitFor({ timeout: 60_000 });
    await screenshotBoth(page, 'booking-cancelled-after-restart');
    expect(await contactUs.count()).toBe(0);
    expect(await refunded.count()).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
    // Where they were kept: beside the embedded database, as `npm start` keeps them.
    expect(readdirSync(path.join(dataDir, 'paysim'))).toContain('books.jsonl');
  }, 240_000);
});
