// A payment whose outcome is not known (pm_card_timeout_succeeds: charged, the bank's
// first answer lost): checkout says it is pending and what that means while the request
// still waits for the bank, follows the booking, and shows it confirmed. When the bank's
// webhook settles it meanwhile, the buyer sees the booking at once, not after the wait.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { launchBrowser, openPage, screenshotBoth, seriousViolations, describeInBrowser } from '../support/browser.js';
import { holdSeats, signInTab } from './buyerSession.js';

/** How long the service waits for the bank's first answer (10 s in production). */
const PAYMENT_TIMEOUT_MS = 8000;

let t: TestService;
let browser: Browser;
let show: Awaited<ReturnType<typeof createShow>>;
let buyers: Buyer[];
beforeAll(async () => {
  t = await startTestService({ pglite: true, payments: {}, config: { paymentTimeoutMs: PAYMENT_TIMEOUT_MS } });
  show = await createShow(t);
  buyers = await registerBuyers(t, 2);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function payLostAnswer(buyer: Buyer, seats: string[]) {
  const holdId = await holdSeats(t, buyer, show.showId, seats);
  const opened = await openPage(browser, t.baseUrl);
  const { page } = opened;
  await signInTab(page, buyer);
  await page.goto(`/holds/${holdId}`);
  await page.getByRole('radio', { name: /pm_card_timeout_succeeds/ }).check();
  // Whether the booking request has been answered yet, as the page saw it.
  const answered = { at: 0 };
  page.on('response', (r) => { if (r.request().method() === 'POST' && new URL(r.url()).pathname === '/v1/bookings') answered.at = Date.now(); });
  const paidAt = Date.now();
  await page.getByRole('button', { name: /^Pay/ }).click();
  return { ...opened, holdId, paidAt, answered };
}

const bookingOf = async (buyer: Buyer, holdId: string) =>
  ((await t.http.get('/v1/bookings', buyer.token)).body.bookings as { booking_id: string; hold_id: string; status: string }[]).find((b) => b.hold_id === holdId);

const pendingPanel = (page: Page) => page.getByRole('status').filter({ has: page.getByRole('heading', { name: 'Payment pending' }) });

describeInBrowser('web app: a payment whose outcome is not known yet', () => {
  it('says pending and what it means while the bank has not answered, then shows the booking confirmed', async () => {
    const buyer = buyers[0]!;
    // The bank's webhook is lost as well: only the reconciler, asking the bank after the
    // request gave up and a margin, settles the booking, so it stays pending for seconds.
    t.simulator!.ctx.webhooks.setEndpoint(null);
    try {
      const { page, errors, context, holdId, paidAt, answered } = await payLostAnswer(buyer, ['A1']);
      const panel = pendingPanel(page);
      await panel.waitFor({ timeout: PAYMENT_TIMEOUT_MS });
      // Said while the request still waits for the bank, and what the service says too.
      expect(answered.at).toBe(0);
      expect(Date.now() - paidAt).toBeLessThan(PAYMENT_TIMEOUT_MS);
      expect((await bookingOf(buyer, holdId))?.status).toBe('pending');
      await panel.getByText(/^Your bank has not answered yet\. We will confirm your booking or refund the payment automatically/).waitFor();
      await panel.getByText(/^You can leave this page/).waitFor();
      expect(await page.getByRole('button', { name: /^Pay/ }).count()).toBe(0);
      await screenshotBoth(page, 'checkout-payment-pending');
      expect(await seriousViolations(page)).toEqual([]);

      // The request answers pending; the page follows the booking to its outcome.
      await expect.poll(() => answered.at, { timeout: PAYMENT_TIMEOUT_MS + 5000 }).toBeGreaterThan(0);
      await panel.waitFor();
      const booking = (await bookingOf(buyer, holdId))!;
      await page.waitForURL((u) => u.pathname === `/bookings/${booking.booking_id}`, { timeout: 30_000 });
      await page.getByText('Confirmed', { exact: true }).waitFor();
      expect((await bookingOf(buyer, holdId))?.status).toBe('confirmed');
      expect(await pendingPanel(page).count()).toBe(0);
      expect(errors).toEqual([]);
      await context.close();
    } finally {
      t.simulator!.ctx.webhooks.setEndpoint(`${t.baseUrl}/v1/payments/webhook`);
    }
  });

  it('shows the booking confirmed as soon as the bank’s webhook settles it, not after the request’s wait', async () => {
    const buyer = buyers[1]!;
    const { page, errors, context, holdId, paidAt, answered } = await payLostAnswer(buyer, ['B1']);
    await page.waitForURL(/\/bookings\/[^/]+$/, { timeout: PAYMENT_TIMEOUT_MS + 5000 });
    expect(answered.at).toBe(0);
    expect(Date.now() - paidAt).toBeLessThan(PAYMENT_TIMEOUT_MS);
    await page.getByText('Confirmed', { exact: true }).waitFor();
    expect((await bookingOf(buyer, holdId))?.status).toBe('confirmed');
    expect(errors).toEqual([]);
    await context.close();
  });
});
