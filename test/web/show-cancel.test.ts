// Cancelling a show in the operator pages, and what its buyers then see: the operator
// cancels from the show's dashboard (a reason, a confirmation step) and follows the
// refunds to the end; a buyer's booking page says the organiser cancelled the show and
// shows the refund. Both pages at both widths, axe-checked, with no console errors.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ADMIN, startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { launchBrowser, openPage, screenshotBoth, seriousViolations, describeInBrowser } from '../support/browser.js';
import { signInTab } from './buyerSession.js';

describeInBrowser('web app: cancelling a show', () => {
  let t: TestService;
  let browser: Browser;
  let adminId: string;
  let buyers: Buyer[];

  beforeAll(async () => {
    t = await startTestService({ payments: {}, config: { poolSize: 8 } });
    adminId = (await t.http.post('/v1/sessions', ADMIN)).body.user_id as string;
    buyers = await registerBuyers(t, 2);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function book(buyer: Buyer, showId: string, seats: string[]): Promise<string> {
    const hold = await t.http.post(`/v1/shows/${showId}/holds`, { seats }, buyer.token);
    expect(hold.status, hold.text).toBe(201);
    const booking = await t.http.post('/v1/bookings', { hold_id: hold.body.hold_id, payment_method: 'pm_card_visa' }, buyer.token, { 'idempotency-key': `pay-${hold.body.hold_id}` });
    expect(booking.body.status, booking.text).toBe('confirmed');
    return booking.body.booking_id as string;
  }

  it('the operator cancels the show from its dashboard and watches every refund go out; the buyer sees the cancellation and the refund', async () => {
    const { showId, seats } = await createShow(t, { rows: 2, seatsPerRow: 8 });
    const alicesBooking = await book(buyers[0]!, showId, [seats[0]!, seats[1]!]);
    await book(buyers[1]!, showId, [seats[5]!]);

    const { page, errors, context } = await openPage(browser, t.baseUrl);
    const s = JSON.stringify({ user_id: adminId, token: t.adminToken, role: 'admin' });
    await context.addInitScript((session: string) => localStorage.setItem('boxoffice.session', session), s);
    await page.goto(`/admin/shows/${showId}`);
    await page.getByRole('heading', { name: 'Cancel show' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // No reason: the required field stops the form, and nothing is cancelled.
    await page.getByRole('button', { name: 'Cancel show' }).click();
    expect(await page.getByLabel('Reason').evaluate((el) => (el as HTMLInputElement).validity.valueMissing)).toBe(true);
    expect(await page.getByRole('button', { name: 'Yes, cancel the show' }).count()).toBe(0);
    expect((await t.http.get(`/v1/shows/${showId}`)).body.status).toBe('on_sale');

    await page.getByLabel('Reason').fill('The band missed its flight');
    await page.getByRole('button', { name: 'Cancel show' }).click();
    // A confirmation step, which can be backed out of.
    await page.getByRole('button', { name: 'Keep selling' }).click();
    expect((await t.http.get(`/v1/shows/${showId}`)).body.status).toBe('on_sale');
    await page.getByRole('button', { name: 'Cancel show' }).click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('cancel-show-question');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Yes, cancel the show' }).click();

    await page.getByRole('heading', { name: 'Cancellation' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Every booking is cancelled and all refunds sent.' }).waitFor({ timeout: 20_000 });
    expect(await page.getByText('2 of 2', { exact: true }).count()).toBe(1);
    expect(await page.getByText('The band missed its flight').count()).toBe(1);
    expect((await t.http.get(`/v1/shows/${showId}`)).body.status).toBe('cancelled');
    await screenshotBoth(page, 'admin-show-cancelled');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();

    // The buyer's booking page.
    const buyer = await openPage(browser, t.baseUrl);
    await signInTab(buyer.page, buyers[0]!);
    await buyer.page.goto(`/bookings/${alicesBooking}`);
    await buyer.page.getByText('This show was cancelled by the organiser', { exact: false }).waitFor();
    await buyer.page.getByText(/Refund of .*: refunded/).waitFor();
    expect(await buyer.page.getByText('Cancelled by the organiser: the show was cancelled').count()).toBe(1);
    // Nothing to cancel any more, no tickets.
    expect(await buyer.page.getByRole('button', { name: 'Cancel booking' }).count()).toBe(0);
    await screenshotBoth(buyer.page, 'booking-show-cancelled');
    expect(await seriousViolations(buyer.page)).toEqual([]);
    expect(buyer.errors).toEqual([]);
    await buyer.context.close();
  });
});
