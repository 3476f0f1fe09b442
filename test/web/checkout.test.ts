// Checkout (/holds/:id) and the booking page it hands over to: a purchase by keyboard
// only whose ticket QR decodes to the ticket's code; a decline, then another method;
// a click retried after a lost answer reuses its Idempotency-Key (charged once);
// a pending payment followed to its tickets; expiry, release and HOLD_EXPIRED; 429;
// no test methods offered against real Stripe.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { launchBrowser, openPage, screenshotBoth, seriousViolations, describeInBrowser } from '../support/browser.js';
import { paymentIntentsFor } from '../bookings/helpers.js';
import { loadConfig } from '../../src/config.js';
import { holdSeats, signInTab, tabTo } from './buyerSession.js';

// jsqr is CommonJS: its function is both module.exports and .default; .default types under NodeNext.
const jsQR = jsQRModule.default;

let t: TestService;
let browser: Browser;
let show: Awaited<ReturnType<typeof createShow>>;
let buyers: Buyer[];
beforeAll(async () => {
  t = await startTestService({ pglite: true, payments: {} });
  show = await createShow(t);
  buyers = await registerBuyers(t, 4);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function checkoutPage(buyer: Buyer, holdId: string) {
  const opened = await openPage(browser, t.baseUrl);
  await signInTab(opened.page, buyer);
  await opened.page.goto(`/holds/${holdId}`);
  await opened.page.getByRole('heading', { name: 'Checkout' }).waitFor();
  await opened.page.getByRole('radio', { name: /pm_card_visa/ }).waitFor();
  return opened;
}

const bookingIdOf = (page: Page) => /\/bookings\/([^/?#]+)$/.exec(new URL(page.url()).pathname)![1]!;

describeInBrowser('web app: checkout', () => {
  it('buys by keyboard only, from the seat map: two seats, the hold, pm_card_visa, the booking, its tickets, a QR that decodes to the code', async () => {
    const buyer = buyers[0]!;
    const { page, errors, context } = await openPage(browser, t.baseUrl);
    await signInTab(page, buyer);
    await page.goto(`/shows/${show.showId}`);
    // Tab into the map (it enters at A1), arrows to F7, Enter; right to F8, Space.
    const firstSeat = page.locator('[data-seat="A1"]');
    await firstSeat.waitFor();
    await tabTo(page, firstSeat);
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowDown');
    for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-seat') === 'F7');
    await page.keyboard.press('Enter');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press(' ');
    await expect.poll(() => page.locator('[data-seat][aria-checked="true"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-seat')))).toEqual(['F7', 'F8']);
    await tabTo(page, page.getByRole('button', { name: 'Hold seats' }));
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/holds\/[^/]+$/);
    await page.getByRole('heading', { name: 'Checkout' }).waitFor();
    // The new page has the focus (its main content), not the vanished button: moved once the
    // page has rendered, which may be a frame after its heading appears.
    await expect.poll(() => page.evaluate(() => document.activeElement?.closest('main') !== null)).toBe(true);
    await page.getByText('row F, seat 7').waitFor();
    await page.getByText('€20.00', { exact: true }).waitFor();
    await page.getByRole('timer').getByText(/Seats held for \d+:\d\d/).waitFor();
    await page.getByText('Test Film', { exact: true }).waitFor();
    await screenshotBoth(page, 'checkout');
    expect(await seriousViolations(page)).toEqual([]);

    // Tab into the payment methods (one stop: the checked one), arrows to choose, Tab to Pay, Enter.
    const visa = page.getByRole('radio', { name: /pm_card_visa/ });
    await tabTo(page, visa);
    await page.keyboard.press('ArrowDown');
    expect(await page.getByRole('radio', { name: /pm_card_declined/ }).isChecked()).toBe(true);
    await page.keyboard.press('ArrowUp');
    expect(await visa.isChecked()).toBe(true);
    await page.keyboard.press('Tab');
    const pay = page.getByRole('button', { name: 'Pay €20.00' });
    expect(await pay.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');

    await page.waitForURL(/\/bookings\/[^/]+$/);
    const bookingId = bookingIdOf(page);
    await page.getByText('Confirmed', { exact: true }).waitFor();
    const qr = page.getByRole('img', { name: 'QR code for ticket, row F, seat 7' });
    await qr.waitFor({ timeout: 20_000 });
    await page.getByRole('img', { name: 'QR code for ticket, row F, seat 8' }).waitFor();
    await expect.poll(() => qr.evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0)).toBe(true);
    await screenshotBoth(page, 'booking-tickets');
    expect(await seriousViolations(page)).toEqual([]);

    // The code as text, opened by keyboard.
    await tabTo(page, page.getByText('Ticket code for row F, seat 7'));
    await page.keyboard.press('Enter');
    const shown = await page.locator('details[open] code').first().textContent();
    const api = await t.http.get(`/v1/bookings/${bookingId}/tickets`, buyer.token);
    const ticket = (api.body.tickets as { seat: string; code: string }[]).find((x) => x.seat === 'F7')!;
    expect(shown).toBe(ticket.code);

    // The QR image as the page shows it decodes to exactly the ticket's code.
    const png = PNG.sync.read(await qr.screenshot());
    const decoded = jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height);
    expect(decoded?.data).toBe(ticket.code);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('says a declined payment and takes another method; each attempt has its own key', async () => {
    const buyer = buyers[1]!;
    const holdId = await holdSeats(t, buyer, show.showId, ['A1']);
    const { page, errors, context } = await checkoutPage(buyer, holdId);
    await page.getByRole('radio', { name: /pm_card_declined/ }).check();
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.getByRole('alert').getByText(/Payment declined.*Nothing was charged\. Your seats are still held: choose another payment method/).waitFor();
    await screenshotBoth(page, 'checkout-declined');
    expect(await seriousViolations(page)).toEqual([]);
    // The same method again is a new attempt (a new key): the bank is asked again.
    await page.getByRole('button', { name: /^Pay/ }).click();
    await expect.poll(() => paymentIntentsFor(t, { holdId }).length).toBe(2);
    await page.getByRole('alert').getByText(/Payment declined/).waitFor();
    await page.getByRole('radio', { name: /pm_card_visa/ }).check();
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.waitForURL(/\/bookings\/[^/]+$/);
    await page.getByText('Confirmed', { exact: true }).waitFor();
    expect(paymentIntentsFor(t, { holdId })).toHaveLength(3);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('retries a click whose answer was lost with the same Idempotency-Key: charged once', async () => {
    const buyer = buyers[2]!;
    const holdId = await holdSeats(t, buyer, show.showId, ['B1', 'B2']);
    const { page, context } = await checkoutPage(buyer, holdId);
    const keys: string[] = [];
    let lose = true;
    await page.route('**/v1/bookings', async (route) => {
      keys.push(route.request().headers()['idempotency-key']!);
      const answer = await route.fetch(); // the service charges and answers…
      if (lose) { lose = false; await route.abort('connectionreset'); return; } // …and the answer is lost
      await route.fulfill({ response: answer });
    });
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.getByRole('alert').getByText(/The payment got no answer\. Press Pay again with the same method/).waitFor();
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.waitForURL(/\/bookings\/[^/]+$/);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(paymentIntentsFor(t, { holdId })).toHaveLength(1);
    await context.close();
  });

  it('follows a pending payment (the bank’s first answer lost) to its tickets', async () => {
    const buyer = buyers[3]!;
    const holdId = await holdSeats(t, buyer, show.showId, ['C5']);
    const { page, errors, context } = await checkoutPage(buyer, holdId);
    await page.getByRole('radio', { name: /pm_card_timeout_succeeds/ }).check();
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.waitForURL(/\/bookings\/[^/]+$/, { timeout: 20_000 });
    await page.getByRole('img', { name: 'QR code for ticket, row C, seat 5' }).waitFor({ timeout: 30_000 });
    await page.getByText('Confirmed', { exact: true }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('releases the seats', async () => {
    const buyer = buyers[0]!;
    const holdId = await holdSeats(t, buyer, show.showId, ['D1']);
    const { page, errors, context } = await checkoutPage(buyer, holdId);
    await page.getByRole('button', { name: 'Release seats' }).click();
    await page.getByText('You released these seats.').waitFor();
    expect(await page.getByRole('link', { name: 'Choose seats again' }).getAttribute('href')).toBe(`/shows/${show.showId}`);
    expect((await t.http.get(`/v1/holds/${holdId}`, buyer.token)).body.status).toBe('released');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('says HOLD_EXPIRED when the hold ended meanwhile, and shows the expiry on the countdown', async () => {
    const buyer = buyers[1]!;
    const holdId = await holdSeats(t, buyer, show.showId, ['D2']);
    const { page, context } = await checkoutPage(buyer, holdId);
    expect((await t.http.delete(`/v1/holds/${holdId}`, buyer.token)).status).toBe(204);
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.getByRole('alert').getByText('This hold has expired or was released: nothing was charged.').waitFor();
    expect(await page.getByRole('link', { name: 'Choose seats again' }).getAttribute('href')).toBe(`/shows/${show.showId}`);
    await context.close();

    // The page is signed in before the short hold starts, so the hold's seconds go to the page and its countdown
    // (on a loaded machine, opening a tab and signing in took longer than the hold lasts).
    const quick = await createShow(t, { hold_ttl_seconds: 5 });
    const expiring = await openPage(browser, t.baseUrl);
    await signInTab(expiring.page, buyer);
    const shortHold = await holdSeats(t, buyer, quick.showId, ['A1']);
    await expiring.page.goto(`/holds/${shortHold}`);
    await expiring.page.getByRole('heading', { name: 'Checkout' }).waitFor();
    await expiring.page.getByText('This hold has expired: the seats are no longer reserved for you.').waitFor({ timeout: 15_000 });
    expect(await expiring.page.getByRole('button', { name: /^Pay/ }).count()).toBe(0);
    await screenshotBoth(expiring.page, 'checkout-expired');
    expect(await seriousViolations(expiring.page)).toEqual([]);
    expect(expiring.errors).toEqual([]);
    await expiring.context.close();
  });

  it('says card payment is not available when the service runs against real Stripe', async () => {
    const real = await startTestService({ pglite: true, sweeper: false, config: { stripeSecretKey: 'sk_test_not_the_simulator', stripeWebhookSecret: 'whsec_not_the_simulator' } });
    try {
      const s = await createShow(real);
      const [b] = (await registerBuyers(real, 1)) as [Buyer];
      const holdId = await holdSeats(real, b, s.showId, ['A1']);
      const { page, errors, context } = await openPage(browser, real.baseUrl);
      await signInTab(page, b);
      await page.goto(`/holds/${holdId}`);
      await page.getByText('Card payment is not available in this build of boxoffice.').waitFor();
      expect(await page.getByRole('button', { name: /^Pay/ }).count()).toBe(0);
      await page.getByRole('button', { name: 'Release seats' }).waitFor();
      expect(errors).toEqual([]);
      await context.close();
    } finally {
      await real.close();
    }
  });

  it('says "busy, try again in N s" when the purchase path refuses with 429 Retry-After', async () => {
    const limited = await startTestService({
      pglite: true, payments: {},
      config: { rateLimitExempt: [], rateLimits: { ...loadConfig({}).rateLimits, purchasePerAccount: { points: 1, seconds: 60 } } },
    });
    try {
      const s = await createShow(limited);
      const [b] = (await registerBuyers(limited, 1)) as [Buyer];
      const holdId = await holdSeats(limited, b, s.showId, ['A1']); // the account's one purchase request this minute
      const { page, context } = await openPage(browser, limited.baseUrl);
      await signInTab(page, b);
      await page.goto(`/holds/${holdId}`);
      await page.getByRole('button', { name: /^Pay/ }).click();
      await page.getByRole('alert').getByText(/^Too many attempts: try again in \d+ s\.$/).waitFor();
      await page.getByRole('button', { name: /^Pay/ }).waitFor();
      await context.close();
    } finally {
      await limited.close();
    }
  });
});
