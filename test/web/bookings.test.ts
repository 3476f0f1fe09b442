// My bookings (/bookings) and one booking (/bookings/:id): listed newest first with
// show, seats, amount and status; cancelling asks first, then shows the refund; too
// late to cancel is explained; a declined booking offers another payment method.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { launchBrowser, openPage, screenshotBoth, seriousViolations, describeInBrowser } from '../support/browser.js';
import { confirmedBooking, holdSeats, newKey, postBooking } from '../bookings/helpers.js';
import { signInTab } from './buyerSession.js';

let t: TestService;
let browser: Browser;
let buyer: Buyer;
let later: Awaited<ReturnType<typeof createShow>>;
let soon: Awaited<ReturnType<typeof createShow>>;
beforeAll(async () => {
  t = await startTestService({ pglite: true, payments: {} });
  later = await createShow(t);
  // Starts in an hour: inside the default 120-minute cancellation cut-off.
  soon = await createShow(t, { starts_at: new Date(Date.now() + 3_600_000).toISOString() });
  [buyer] = (await registerBuyers(t, 1)) as [Buyer];
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describeInBrowser('web app: my bookings', () => {
  it('lists my bookings newest first; cancelling one shows its refund', async () => {
    const first = await confirmedBooking(t, later.showId, ['E1', 'E2'], buyer.token);
    const second = await confirmedBooking(t, soon.showId, ['A1'], buyer.token);
    const { page, errors, context } = await openPage(browser, t.baseUrl);
    await signInTab(page, buyer);
    await page.goto('/bookings');
    await page.getByRole('heading', { name: 'My bookings' }).waitFor();
    const links = page.getByRole('link', { name: /^Test Film/ });
    await expect.poll(() => links.count()).toBe(2);
    expect(await links.nth(0).getAttribute('href')).toBe(`/bookings/${second.booking_id}`);
    expect(await links.nth(1).getAttribute('href')).toBe(`/bookings/${first.booking_id}`);
    const card = page.getByRole('listitem').filter({ has: page.locator(`a[href="/bookings/${first.booking_id}"]`) });
    await card.getByText('Row E, seat 1; Row E, seat 2', { exact: true }).waitFor();
    await card.getByText('€20.00').waitFor();
    await card.getByText('Confirmed').waitFor();
    await card.getByText(/Test Cinema, Testville/).waitFor();
    await screenshotBoth(page, 'bookings');
    expect(await seriousViolations(page)).toEqual([]);

    await links.nth(1).click();
    await page.getByRole('heading', { name: 'Booking: Test Film' }).waitFor();
    await page.getByRole('img', { name: 'QR code for ticket, Row E, seat 2' }).waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Cancel booking' }).click();
    const question = page.getByText('Cancel this booking? Your seats are released and €20.00 is refunded to your payment method.');
    await question.waitFor();
    expect(await question.evaluate((el) => el === document.activeElement)).toBe(true);
    await screenshotBoth(page, 'booking-cancel-confirm');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Yes, cancel booking' }).click();
    await page.getByText('Cancelled', { exact: true }).waitFor();
    await page.getByText('Refund of €20.00: refunded').waitFor({ timeout: 20_000 });
    expect(await page.getByRole('img', { name: /QR code/ }).count()).toBe(0);
    await screenshotBoth(page, 'booking-cancelled');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('link', { name: 'All my bookings' }).click();
    await card.getByText('Cancelled').waitFor();
    await card.getByText('Refund of €20.00: refunded').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('explains why a booking cannot be cancelled this close to the show', async () => {
    const bookings = (await t.http.get('/v1/bookings', buyer.token)).body.bookings as { booking_id: string; show_id: string }[];
    const close = bookings.find((b) => b.show_id === soon.showId)!;
    const { page, context } = await openPage(browser, t.baseUrl);
    await signInTab(page, buyer);
    await page.goto(`/bookings/${close.booking_id}`);
    await page.getByText(/Bookings for this show can be cancelled until/).waitFor();
    await page.getByRole('button', { name: 'Cancel booking' }).click();
    await page.getByRole('button', { name: 'Yes, cancel booking' }).click();
    await page.getByRole('alert').getByText(/It is too late to cancel this booking\./).waitFor();
    await page.getByText('Confirmed', { exact: true }).waitFor();
    await context.close();
  });

  it('offers another payment method for a declined booking while its seats are held', async () => {
    const holdId = await holdSeats(t, later.showId, ['G3'], buyer.token);
    const declined = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_declined' }, buyer.token, newKey('web'));
    expect(declined.body.status).toBe('failed');
    const { page, errors, context } = await openPage(browser, t.baseUrl);
    await signInTab(page, buyer);
    await page.goto(`/bookings/${declined.body.booking_id}`);
    await page.getByText('Payment declined', { exact: true }).waitFor();
    await page.getByText(/^Payment declined: your card was declined\. Nothing was charged\./).waitFor();
    expect(await page.getByRole('link', { name: 'Try another payment method' }).getAttribute('href')).toBe(`/holds/${holdId}`);
    await screenshotBoth(page, 'booking-declined');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('sends a signed-out visitor to sign in and back', async () => {
    const { page, context } = await openPage(browser, t.baseUrl);
    await page.goto('/bookings');
    await page.waitForURL(/\/signin\?next=%2Fbookings$/);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await context.close();
  });
});
