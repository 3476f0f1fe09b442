// The waiting-room page (/shows/:id/queue): joins once, shows the place, the people
// ahead and the estimate ("unknown" while nobody is admitted), paused, keeps polling
// through failures ("reconnecting…"), and once served stores the admission for this
// tab and hands over to seat selection (/shows/:id); checkout pays with that admission;
// the pre-queue before the sale opens; sold out.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { launchBrowser, openPage, screenshotBoth, seriousViolations, describeInBrowser } from '../support/browser.js';
import { joinAndAdmit, roomConfig } from '../waiting-room/helpers.js';
import { signInTab } from './buyerSession.js';

let t: TestService;
let browser: Browser;
let buyers: Buyer[];
let room: Awaited<ReturnType<typeof createShow>>;
beforeAll(async () => {
  // The room in memory (no Redis), ticking fast, admitting up to 60,000 a minute unless capped.
  t = await startTestService({ pglite: true, payments: {}, config: roomConfig(null, { controlMs: 0 }) });
  room = await createShow(t, { waiting_room: true });
  buyers = await registerBuyers(t, 3);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const control = async (change: Record<string, unknown>) => {
  const r = await t.http.post(`/v1/admin/shows/${room.showId}/queue`, change, t.adminToken);
  expect(r.status, r.text).toBe(200);
};

/** The value beside a term of the page's facts list. */
const fact = (page: import('playwright-core').Page, term: string) => page.locator(`dt:text-is("${term}") + dd`);

describeInBrowser('web app: waiting room', () => {
  it('sends a signed-out visitor to sign in first', async () => {
    const { page, context } = await openPage(browser, t.baseUrl);
    await page.goto(`/shows/${room.showId}/queue`);
    await page.waitForURL((u) => u.pathname === '/signin' && u.searchParams.get('next') === `/shows/${room.showId}/queue`);
    await context.close();
  });

  it('shows the place while nobody is admitted, paused, reconnecting, then hands over to seat selection with an admission', async () => {
    await control({ max_admit_per_minute: 0 });
    for (const b of buyers.slice(1)) expect((await t.http.post(`/v1/shows/${room.showId}/queue`, {}, b.token)).status).toBe(201);
    const buyer = buyers[0]!;
    const { page, errors, context } = await openPage(browser, t.baseUrl);
    await signInTab(page, buyer);
    await page.goto(`/shows/${room.showId}/queue`);
    await page.getByRole('heading', { name: 'Waiting room: Test Film' }).waitFor();
    await expect.poll(() => fact(page, 'Your place in the queue').textContent()).toBe('3');
    expect(await fact(page, 'People ahead of you').textContent()).toBe('2');
    expect(await fact(page, 'Estimated wait').textContent()).toBe('unknown');
    await page.getByText('You are in the queue. Keep this page open: it moves on by itself.').waitFor();
    // The place is kept for the tab: the same one as the API gives this buyer.
    const place = await page.evaluate((id) => JSON.parse(sessionStorage.getItem(`boxoffice.queue.${id}`) ?? 'null'), room.showId);
    expect(place.position).toBe(3);
    await screenshotBoth(page, 'waiting-room');
    expect(await seriousViolations(page)).toEqual([]);

    await control({ action: 'pause' });
    await page.getByText('Admissions are paused for now. Your place is kept; this page carries on by itself.').waitFor({ timeout: 15_000 });
    await screenshotBoth(page, 'waiting-room-paused');

    // The queue cannot be reached for a while: the page says so and keeps asking.
    await page.route(`**/v1/shows/${room.showId}/queue`, (route) => route.abort('connectionrefused'));
    await page.getByText('Reconnecting…').waitFor({ timeout: 15_000 });
    await page.unroute(`**/v1/shows/${room.showId}/queue`);
    await page.getByText('Reconnecting…').waitFor({ state: 'detached', timeout: 15_000 });

    await control({ action: 'resume', max_admit_per_minute: null });
    await page.waitForURL((u) => u.pathname === `/shows/${room.showId}`, { timeout: 30_000 });
    const admission = await page.evaluate((id) => JSON.parse(sessionStorage.getItem(`boxoffice.admission.${id}`) ?? 'null'), room.showId);
    expect(admission).toMatchObject({ admission_token: expect.any(String), expires_at: expect.any(String) });
    // The stored admission is the one the purchase path takes, and checkout sends it when paying.
    const hold = await t.http.post(`/v1/shows/${room.showId}/holds`, { seats: ['A1'] }, buyer.token, { 'admission-token': admission.admission_token });
    expect(hold.status, hold.text).toBe(201);
    await page.goto(`/holds/${hold.body.hold_id}`);
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.waitForURL(/\/bookings\/[^/]+$/);
    await page.getByText('Confirmed', { exact: true }).waitFor();
    // Only the refused polls logged errors.
    expect(errors.filter((e) => !/ERR_CONNECTION_REFUSED|ERR_FAILED/.test(e))).toEqual([]);
    await context.close();
  });

  it('waits in the pre-queue before the sale opens, then gets its drawn place and is admitted', async () => {
    const opensAt = new Date(Date.now() + 8000).toISOString();
    const early = await createShow(t, { waiting_room: true, sale_opens_at: opensAt });
    const buyer = buyers[1]!;
    const { page, errors, context } = await openPage(browser, t.baseUrl);
    await signInTab(page, buyer);
    await page.goto(`/shows/${early.showId}/queue`);
    await page.getByText('You are in the pre-queue. When the sale opens, everyone in it gets a place in a random order.').waitFor();
    await fact(page, 'Sale opens').waitFor();
    expect(await page.evaluate((id) => JSON.parse(sessionStorage.getItem(`boxoffice.queue.${id}`) ?? 'null'), early.showId)).toMatchObject({ position: null });
    await screenshotBoth(page, 'waiting-room-pre-queue');
    expect(await seriousViolations(page)).toEqual([]);
    await page.waitForURL((u) => u.pathname === `/shows/${early.showId}`, { timeout: 40_000 });
    expect(await page.evaluate((id) => sessionStorage.getItem(`boxoffice.admission.${id}`), early.showId)).toContain('admission_token');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('says when the show is sold out', async () => {
    const tiny = await createShow(t, { waiting_room: true, rows: 1, seatsPerRow: 1 });
    const first = buyers[2]!;
    const { admission } = await joinAndAdmit(t.http, tiny.showId, first.token);
    const hold = await t.http.post(`/v1/shows/${tiny.showId}/holds`, { seats: ['A1'] }, first.token, { 'admission-token': admission });
    expect(hold.status, hold.text).toBe(201);
    const booked = await t.http.post('/v1/bookings', { hold_id: hold.body.hold_id, payment_method: 'pm_card_visa' }, first.token,
      { 'idempotency-key': `web-sold-out-${Date.now()}`, 'admission-token': admission });
    expect(booked.body.status).toBe('confirmed');
    // The room notices within its sold-out probe (a few seconds).
    await expect.poll(async () => (await t.http.get(`/v1/shows/${tiny.showId}/queue`)).body.sold_out, { timeout: 15_000 }).toBe(true);

    const { page, errors, context } = await openPage(browser, t.baseUrl);
    await signInTab(page, buyers[0]!);
    await page.goto(`/shows/${tiny.showId}/queue`);
    await page.getByText('Sold out: every seat is booked. Your place is kept in case seats come back.').waitFor({ timeout: 20_000 });
    await screenshotBoth(page, 'waiting-room-sold-out');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
