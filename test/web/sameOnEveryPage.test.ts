// One show's facts read the same on every page: its time is the venue's local time,
// labelled with the venue's zone, whatever the browser's zone; a seat is written
// "Row C, seat 5" on the map, in the selection, at checkout, in the bookings and on
// the tickets.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ADMIN, startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { launchBrowser, openPage, describeInBrowser } from '../support/browser.js';
import { confirmedBooking, holdSeats } from '../bookings/helpers.js';

// A Berlin show at 23:30 UTC on 15 January next year. Berlin keeps CET (UTC+1) all
// January, so its clocks read 00:30 on the 16th; Los Angeles (PST, UTC-8) reads 15:30
// on the 15th. The browser sits in Los Angeles: its own zone must show nowhere.
const year = new Date().getUTCFullYear() + 1;
const startsAt = Date.parse(`${year}-01-15T23:30:00.000Z`);
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const inBerlin = new Date(startsAt + 3_600_000);
const EXPECTED = `${WEEKDAYS[inBerlin.getUTCDay()]}, 16 Jan ${year}, 00:30 CET`;
const BROWSER_ZONE = 'America/Los_Angeles';
const LOS_ANGELES_READING = new RegExp(`15 Jan ${year}, 15:30|PST|GMT-8`);

let t: TestService;
let browser: Browser;
let buyer: Buyer;
let adminId: string;
let show: Awaited<ReturnType<typeof createShow>>;
let holdId: string;
let bookingId: string;

beforeAll(async () => {
  t = await startTestService({ pglite: true, payments: {} });
  adminId = (await t.http.post('/v1/sessions', ADMIN)).body.user_id as string;
  show = await createShow(t, { city: 'Berlin', timezone: 'Europe/Berlin', starts_at: new Date(startsAt).toISOString() });
  [buyer] = (await registerBuyers(t, 1)) as [Buyer];
  holdId = await holdSeats(t, show.showId, ['B3'], buyer.token);
  bookingId = (await confirmedBooking(t, show.showId, ['C5', 'C6'], buyer.token)).booking_id;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A tab in Los Angeles, signed in as `who` (the session the sign-in page would keep). */
async function tabInLosAngeles(who: { user_id: string; token: string; role: string }) {
  const opened = await openPage(browser, t.baseUrl, undefined, { timezoneId: BROWSER_ZONE });
  await opened.context.addInitScript((s: string) => localStorage.setItem('boxoffice.session', s), JSON.stringify(who));
  return opened;
}

const bodyText = (page: Page) => page.evaluate(() => document.body.innerText);

/** The texts of every <time> on the page that stands for the show's start. */
const startTimes = (page: Page) => page.locator('time[datetime]').evaluateAll((els, at) =>
  els.filter((e) => Date.parse(e.getAttribute('datetime') ?? '') === at).map((e) => e.textContent), startsAt);

describeInBrowser('web app: the same on every page', () => {
  it('gives the show time in the venue’s zone, labelled, on every page, for a browser in another zone', async () => {
    // The test's own reading of the browser's zone, to be sure the browser is elsewhere.
    const buyerTab = await tabInLosAngeles({ user_id: buyer.userId, token: buyer.token, role: 'user' });
    expect(await buyerTab.page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)).toBe(BROWSER_ZONE);
    const operatorTab = await tabInLosAngeles({ user_id: adminId, token: t.adminToken, role: 'admin' });
    const pages: [Page, string][] = [
      [buyerTab.page, '/'],
      [buyerTab.page, `/events/${show.eventId}`],
      [buyerTab.page, `/shows/${show.showId}`],
      [buyerTab.page, `/holds/${holdId}`],
      [buyerTab.page, '/bookings'],
      [buyerTab.page, `/bookings/${bookingId}`],
      [operatorTab.page, '/admin'],
      [operatorTab.page, `/admin/shows/${show.showId}`],
    ];
    const seen: Record<string, string[]> = {};
    for (const [page, path] of pages) {
      await page.goto(path);
      await expect.poll(() => bodyText(page), { message: `${path} gives the show time as ${EXPECTED}`, timeout: 15_000 }).toContain(EXPECTED);
      seen[path] = (await startTimes(page)).map(String);
      // Nowhere the browser's own reading of the start: 15:30 PST on the 15th.
      expect(await bodyText(page), path).not.toMatch(LOS_ANGELES_READING);
    }
    // Every <time> of the show's start, on every page that marks one, reads the same.
    expect(new Set(Object.values(seen).flat())).toEqual(new Set([EXPECTED]));
    expect(Object.keys(seen).filter((p) => seen[p]!.length > 0)).toEqual(['/', `/events/${show.eventId}`, `/shows/${show.showId}`, `/holds/${holdId}`, '/bookings', `/bookings/${bookingId}`]);
    expect([...buyerTab.errors, ...operatorTab.errors]).toEqual([]);
    await buyerTab.context.close();
    await operatorTab.context.close();
  });

  it('writes a seat one way on the map, the selection, checkout, the bookings and the tickets', async () => {
    const { page, errors, context } = await tabInLosAngeles({ user_id: buyer.userId, token: buyer.token, role: 'user' });
    // Any other way of writing these seats: "B4", "Seat C5", "row C, seat 5".
    const otherWays = /\b[BC][3-6]\b|\bSeat [BC]\d|\brow [BC], seat/;
    const sameEverywhere = async (path: string, want: string[]) => {
      for (const w of want) await expect.poll(() => bodyText(page), { message: `${path} writes ${w}`, timeout: 15_000 }).toContain(w);
      expect(await bodyText(page), path).not.toMatch(otherWays);
    };

    await page.goto(`/shows/${show.showId}`);
    const b4 = page.getByRole('checkbox', { name: 'Row B, seat 4, €10.00, available', exact: true });
    await b4.click();
    await page.getByRole('status').getByText('Row B, seat 4 added.', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Remove Row B, seat 4', exact: true }).waitFor();
    await sameEverywhere(`/shows/${show.showId}`, ['Row B, seat 4']);

    await page.goto(`/holds/${holdId}`);
    await sameEverywhere(`/holds/${holdId}`, ['Row B, seat 3']);
    await page.goto('/bookings');
    await sameEverywhere('/bookings', ['Row C, seat 5; Row C, seat 6']);
    await page.goto(`/bookings/${bookingId}`);
    await page.getByRole('img', { name: 'QR code for ticket, Row C, seat 6', exact: true }).waitFor({ timeout: 20_000 });
    await sameEverywhere(`/bookings/${bookingId}`, ['Row C, seat 5; Row C, seat 6', 'Ticket code for Row C, seat 5']);
    expect(errors).toEqual([]);
    await context.close();
  });
});
