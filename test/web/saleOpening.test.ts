// A show whose sale has not opened: the show page says when it opens (the venue's time)
// and counts down to it; the map is there but takes no pick and "Hold seats" is not
// offered; at the opening the map opens without a reload and a hold succeeds. A
// waiting-room show takes the buyer to the pre-queue early, counting down there too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { launchBrowser, openPage, screenshotBoth, seriousViolations, describeInBrowser } from '../support/browser.js';
import { roomConfig } from '../waiting-room/helpers.js';
import { signInTab } from './buyerSession.js';
import { saleOpensAt, untilText } from '../../web/src/saleTime.js';
import type { Show } from '../../web/src/api/types.js';

let t: TestService;
let browser: Browser;
let buyers: Buyer[];
beforeAll(async () => {
  t = await startTestService({ pglite: true, config: roomConfig(null) });
  buyers = await registerBuyers(t, 2);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** The seconds the countdown reads ("Opens in 0:07" → 7). */
async function countdownSeconds(page: Page): Promise<number> {
  const text = await page.getByRole('timer').first().textContent() ?? '';
  const m = /Opens in (\d+):(\d\d)/.exec(text);
  if (!m) throw new Error(`no countdown in "${text}"`);
  return Number(m[1]) * 60 + Number(m[2]);
}

/** "19:40": the opening's hour and minute in the venue's zone, as the browser formats them. */
const venueClock = (page: Page, iso: string, timeZone: string) =>
  page.evaluate(([at, tz]) => new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: tz }).format(new Date(at!)), [iso, timeZone]);

describe('the time to a sale\'s opening', () => {
  it('reads as minutes and seconds within the hour, hours and minutes within the day, then days and hours', () => {
    expect([0, 0.2, 9, 69, 3599, 3600, 3_660, 86_399, 86_400, 2 * 86_400 + 3 * 3600 + 59].map(untilText))
      .toEqual(['0:00', '0:01', '0:09', '1:09', '59:59', '1 h 00 min', '1 h 01 min', '23 h 59 min', '1 day 0 h', '2 days 3 h']);
  });

  it('is ahead only while sale_opens_at is later than now', () => {
    const now = Date.parse('2026-12-04T14:00:00Z');
    const show = (at: string | null) => ({ sale_opens_at: at }) as Show;
    expect(saleOpensAt(show('2026-12-04T14:00:01Z'), now)).toBe('2026-12-04T14:00:01Z');
    expect(saleOpensAt(show('2026-12-04T14:00:00Z'), now)).toBeNull();
    expect(saleOpensAt(show(null), now)).toBeNull();
    expect(saleOpensAt(null, now)).toBeNull();
  });
});

describeInBrowser('web app: a show before its sale opens', () => {
  it('counts down to the opening with the map closed, then opens it without a reload and holds', async () => {
    const buyer = buyers[0]!;
    const { page, errors, context } = await openPage(browser, t.baseUrl);
    await signInTab(page, buyer);
    // Made once the tab is ready, so its seconds go to the page (a loaded machine is slow to open a tab).
    // The venue is half an hour off any whole-hour zone, so its time is not the browser's (UTC).
    const opensAt = new Date(Date.now() + 15_000);
    const show = await createShow(t, { sale_opens_at: opensAt.toISOString(), timezone: 'Asia/Kolkata' });
    await page.goto(`/shows/${show.showId}`);
    const a1 = page.locator('[data-seat="A1"]');
    await a1.waitFor();
    // The reload check: a mark on this document survives only if the page is never loaded again.
    await page.evaluate(() => { (window as unknown as { sameDocument: boolean }).sameDocument = true; });

    // When it opens, in the venue's time, and a countdown that moves.
    await page.getByText(/^Sales open /).waitFor();
    expect(await page.getByText(/^Sales open /).textContent()).toContain(await venueClock(page, opensAt.toISOString(), 'Asia/Kolkata'));
    const first = await countdownSeconds(page);
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(15);

    // Closed: a click on a free seat selects nothing, and there is nothing to hold.
    await a1.click();
    expect(await a1.getAttribute('aria-checked')).toBe('false');
    expect(await page.locator('[data-seat][aria-checked="true"]').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Hold seats' }).count()).toBe(0);
    await page.getByText(/^The sale has not opened yet: seats can be chosen from /).waitFor();
    await expect.poll(() => countdownSeconds(page), { timeout: 5000 }).toBeLessThan(first);
    await screenshotBoth(page, 'show-before-sale');
    expect(await seriousViolations(page)).toEqual([]);

    // The opening: "Hold seats" comes back by itself, not before the time, in the same document.
    await page.getByRole('button', { name: 'Hold seats' }).waitFor({ timeout: 20_000 });
    expect(Date.now()).toBeGreaterThanOrEqual(opensAt.getTime());
    expect(await page.getByRole('timer').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    await a1.click();
    expect(await a1.getAttribute('aria-checked')).toBe('true');
    await page.getByRole('button', { name: 'Hold seats' }).click();
    await page.waitForURL(/\/holds\/[^/]+$/);
    const holdId = new URL(page.url()).pathname.split('/').pop()!;
    const hold = await t.http.get(`/v1/holds/${holdId}`, buyer.token);
    expect(hold.body).toMatchObject({ status: 'active', seats: ['A1'] });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('takes a buyer of a waiting-room show from the show page into the pre-queue early, counting down to the opening', async () => {
    const buyer = buyers[1]!;
    const { page, errors, context } = await openPage(browser, t.baseUrl);
    await signInTab(page, buyer);
    const opensAt = new Date(Date.now() + 10_000);
    const show = await createShow(t, { waiting_room: true, sale_opens_at: opensAt.toISOString() });
    await page.goto(`/shows/${show.showId}`);
    await page.waitForURL((u) => u.pathname === `/shows/${show.showId}/queue`);
    await page.getByText('You are in the pre-queue. When the sale opens, everyone in it gets a place in a random order.').waitFor();
    const first = await countdownSeconds(page);
    expect(first).toBeGreaterThan(0);
    await expect.poll(() => countdownSeconds(page), { timeout: 5000 }).toBeLessThan(first);
    // At the opening the pre-queue's places are drawn, and this one is admitted to an open map.
    await page.waitForURL((u) => u.pathname === `/shows/${show.showId}`, { timeout: 40_000 });
    expect(Date.now()).toBeGreaterThanOrEqual(opensAt.getTime());
    const a1 = page.locator('[data-seat="A1"]');
    await a1.click();
    expect(await a1.getAttribute('aria-checked')).toBe('true');
    await page.getByRole('button', { name: 'Hold seats' }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
