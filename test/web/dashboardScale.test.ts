// The operator's dashboard reads true from its first draw: the charts span the last minute
// (a new show's first chart once ran from "Apr 2027 to Aug 2029"), a big hall's few held
// and booked seats are drawn on their own scale (beside 5,000 available they were a flat
// line), and after a sell-out the people left in the queue are shown as told it is sold
// out. The buyer's queue screen counts the place from the front of those still waiting.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN, startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { launchBrowser, openPage, screenshotBoth, seriousViolations, describeInBrowser } from '../support/browser.js';
import { joinAndAdmit, roomConfig } from '../waiting-room/helpers.js';
import { holdSeats, signInTab } from './buyerSession.js';

const tile = (page: Page, label: string) => page.locator('.tile').filter({ has: page.getByText(label, { exact: true }) }).locator('.tile-value');
const seconds = (hms: string) => hms.split(':').reduce((s, part) => s * 60 + Number(part), 0);

describeInBrowser('web app: the operator dashboard at the start and the end of a sale', () => {
  let t: TestService;
  let browser: Browser;
  let adminId: string;
  let buyers: Buyer[];

  beforeAll(async () => {
    t = await startTestService({ pglite: true, payments: {}, config: roomConfig(null) });
    adminId = (await t.http.post('/v1/sessions', ADMIN)).body.user_id as string;
    buyers = await registerBuyers(t, 4);
    browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function operatorPage(): Promise<{ page: Page; errors: string[]; context: BrowserContext }> {
    const opened = await openPage(browser, t.baseUrl);
    const s = JSON.stringify({ user_id: adminId, token: t.adminToken, role: 'admin' });
    await opened.context.addInitScript((session: string) => localStorage.setItem('boxoffice.session', session), s);
    return opened;
  }

  it('charts the last minute from the first draw, and a big hall\'s held and booked seats on their own scale', async () => {
    const { showId } = await createShow(t, { rows: 25, seatsPerRow: 200 });
    await holdSeats(t, buyers[0]!, showId, ['A1', 'A2', 'A3']);
    const { page, errors, context } = await operatorPage();
    const opened = Date.now();
    await page.goto(`/admin/shows/${showId}`);
    const span = page.locator('.time-chart').filter({ hasText: 'Held and booked seats' }).locator('.time-chart-span time');
    await span.first().waitFor();
    const [from, to] = await span.allTextContents();
    // The first draw spans the minute before now (UTC, the browser's zone), not a day or years.
    const width = (seconds(to!) - seconds(from!) + 86_400) % 86_400;
    expect(width).toBe(60);
    const nowOfDay = Math.floor(((Date.now() / 1000) % 86_400));
    expect(Math.abs(((seconds(to!) - nowOfDay + 43_200 + 86_400) % 86_400) - 43_200)).toBeLessThan((Date.now() - opened) / 1000 + 5);

    await expect.poll(() => tile(page, 'Held').textContent(), { timeout: 15_000 }).toBe('3');
    expect(await tile(page, 'Available').textContent()).toBe('4,997');
    expect(await page.locator('.tile').filter({ hasText: 'Held' }).locator('.tile-detail').first().textContent()).toBe('0.1 % of 5,000');
    const chart = page.getByRole('img', { name: /^Held and booked seats:/ });
    expect(await chart.getAttribute('aria-label')).toBe('Held and booked seats: now 3 held, 0 booked, 4997 available');
    // The scale's top follows held and booked (3), not the 5,000 seats.
    await expect.poll(async () => Number(await chart.getAttribute('data-y-top')), { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    expect(Number(await chart.getAttribute('data-y-top'))).toBeLessThan(10);
    await screenshotBoth(page, 'admin-dashboard-big-hall');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('after a sell-out says the people still queueing were told it is sold out', async () => {
    const tiny = await createShow(t, { waiting_room: true, rows: 1, seatsPerRow: 1 });
    const { admission } = await joinAndAdmit(t.http, tiny.showId, buyers[1]!.token);
    const hold = await t.http.post(`/v1/shows/${tiny.showId}/holds`, { seats: ['A1'] }, buyers[1]!.token, { 'admission-token': admission });
    expect(hold.status, hold.text).toBe(201);
    const booked = await t.http.post('/v1/bookings', { hold_id: hold.body.hold_id, payment_method: 'pm_card_visa' }, buyers[1]!.token,
      { 'idempotency-key': `dash-sold-out-${Date.now()}`, 'admission-token': admission });
    expect(booked.body.status).toBe('confirmed');
    await expect.poll(async () => (await t.http.get(`/v1/shows/${tiny.showId}/queue`)).body.sold_out, { timeout: 15_000 }).toBe(true);
    for (const b of buyers.slice(2)) expect((await t.http.post(`/v1/shows/${tiny.showId}/queue`, {}, b.token)).status).toBe(201);
    await expect.poll(async () => (await t.http.get(`/v1/admin/shows/${tiny.showId}/queue`, t.adminToken)).body.waiting, { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
    const waiting = (await t.http.get(`/v1/admin/shows/${tiny.showId}/queue`, t.adminToken)).body.waiting as number;

    const { page, errors, context } = await operatorPage();
    await page.goto(`/admin/shows/${tiny.showId}`);
    await tile(page, 'Waiting, told it is sold out').waitFor({ timeout: 15_000 });
    expect(Number(await tile(page, 'Waiting, told it is sold out').textContent())).toBe(waiting);
    expect(await page.getByText('Queue depth', { exact: true }).count()).toBe(0);
    await page.locator('.queue-view dt', { hasText: 'Waiting, told it is sold out' }).waitFor();
    expect(await page.getByRole('img', { name: /^Waiting room:/ }).getAttribute('aria-label')).toMatch(/waiting \(told it is sold out\)/);
    await screenshotBoth(page, 'admin-dashboard-sold-out');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();

    // What one of them sees: sold out, and a place counted from the front.
    const buyer = await openPage(browser, t.baseUrl);
    await signInTab(buyer.page, buyers[3]!);
    await buyer.page.goto(`/shows/${tiny.showId}/queue`);
    await buyer.page.getByText('Sold out: every seat is booked. Your place is kept in case seats come back.').waitFor({ timeout: 20_000 });
    const fact = (name: string) => buyer.page.locator('dt', { hasText: name }).locator('xpath=following-sibling::dd[1]');
    const place = Number(await fact('Your place in the queue').textContent());
    const ahead = Number(await fact('People ahead of you').textContent());
    expect(place).toBe(ahead + 1);
    expect(buyer.errors).toEqual([]);
    await buyer.context.close();
  });
});
