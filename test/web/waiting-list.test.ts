// The waiting list in the web app: on a sold-out show's page a buyer joins the list for
// two seats and sees their place; when the holder releases, the page shows the offer
// (the seats, a countdown, the way to checkout) without a reload; axe-clean both times.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { launchBrowser, openPage, screenshotBoth, seriousViolations, describeInBrowser } from '../support/browser.js';
import { holdSeats, signInTab } from './buyerSession.js';

let t: TestService;
let browser: Browser;
let buyers: Buyer[];
beforeAll(async () => {
  t = await startTestService({ pglite: true, workers: true });
  buyers = await registerBuyers(t, 2);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describeInBrowser('web app: waiting list', () => {
  it('joins the list of a sold-out show, then sees the offer with its countdown and goes to checkout', async () => {
    const [holder, waiter] = buyers as [Buyer, Buyer];
    const show = await createShow(t, { rows: 1, seatsPerRow: 2, per_user_limit: 2 });
    const holdId = await holdSeats(t, holder, show.showId, ['A1', 'A2']);

    const { page, errors } = await openPage(browser, t.baseUrl);
    await signInTab(page, waiter);
    await page.goto(`/shows/${show.showId}`);
    await page.getByRole('heading', { name: 'Waiting list' }).waitFor();
    await page.getByText('This show is sold out.', { exact: false }).waitFor();
    await page.getByLabel('Seats wanted').selectOption('2');
    await page.getByRole('button', { name: 'Join the waiting list' }).click();
    await page.getByText('You are number 1 on the waiting list for 2 seats.', { exact: false }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // The holder lets go: the seats are held for the waiter, and the page says so by itself.
    const released = await t.http.delete(`/v1/holds/${holdId}`, holder.token);
    expect(released.status).toBe(204);
    await page.getByText(/Seats are held for you: row A, seat 1; row A, seat 2/i).waitFor({ timeout: 15_000 });
    const timer = page.getByRole('timer');
    await timer.getByText(/Seats held for (9|10):\d\d/).waitFor();
    const first = await timer.textContent();
    await expect.poll(() => timer.textContent(), { timeout: 5000 }).not.toBe(first);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshotBoth(page, 'waiting-list-offer');

    await page.getByRole('link', { name: 'Go to checkout' }).click();
    await page.waitForURL(/\/holds\/[^/]+$/);
    await page.getByRole('heading', { name: 'Checkout' }).waitFor();
    expect(errors).toEqual([]);
  });
});
