// A stadium's show page draws the venue as a plan: its 24 sections in two rings around the
// stage (101–112 nearer than 201–212), each a link and a keyboard stop named with its free
// seats and price, drawn in under a second. A section's map keeps its row letters and seat
// numbers in view wherever it is scrolled, at desktop and phone width.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.js';
import { registerBuyers, type Buyer } from '../support/catalog.js';
import { launchBrowser, openPage, PHONE, DESKTOP, screenshotBoth, seriousViolations, describeInBrowser } from '../support/browser.js';
import { stadiumLayout } from '../../src/app/demoCatalog.js';
import { holdSeats, tabTo } from './buyerSession.js';

async function stadiumShow(t: TestService): Promise<string> {
  const token = t.adminToken;
  const venue = await t.http.post('/v1/admin/venues', { name: 'Estádio Teste', city: 'Porto', timezone: 'Europe/Lisbon' }, token);
  const hall = await t.http.post('/v1/admin/halls', { venue_id: venue.body.id, name: 'Main bowl', layout: stadiumLayout() }, token);
  expect(hall.status).toBe(201);
  expect(hall.body.seat_count).toBe(60_000);
  const event = await t.http.post('/v1/admin/events', { title: 'Plan Night', kind: 'concert', duration_minutes: 150 }, token);
  const show = await t.http.post('/v1/admin/shows', {
    event_id: event.body.id, hall_id: hall.body.id, starts_at: new Date(Date.now() + 3 * 86_400_000).toISOString(),
    currency: 'EUR', price_tiers: { lower: 9500, upper: 6500 }, per_user_limit: 4,
  }, token);
  expect(show.status).toBe(201);
  return show.body.id as string;
}

/** Centre of an element's box on screen. */
async function centre(page: Page, selector: string): Promise<{ x: number; y: number }> {
  const b = await page.locator(selector).boundingBox();
  if (!b) throw new Error(`${selector} is not drawn`);
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
}

/** Whether the row letters and seat numbers on screen sit inside the map's visible frame. */
async function labelsInView(page: Page): Promise<{ letters: string[]; numbers: string[] }> {
  return page.evaluate(() => {
    const frame = document.querySelector('.seatmap-scroll')!.getBoundingClientRect();
    const inside = (el: Element) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.left >= frame.left - 1 && r.right <= frame.right + 1 && r.top >= frame.top - 1 && r.bottom <= frame.bottom + 1;
    };
    const visible = (sel: string) => [...document.querySelectorAll(sel)].filter(inside).map((e) => e.textContent ?? '');
    return { letters: visible('.seatmap-rows.start .seatmap-row-label'), numbers: visible('.seatmap-number') };
  });
}

describeInBrowser('web app: a stadium drawn as a plan', () => {
  let t: TestService;
  let browser: Browser;
  let buyer: Buyer;
  let showId: string;
  beforeAll(async () => {
    t = await startTestService({ pglite: true });
    [buyer] = await registerBuyers(t, 1) as [Buyer];
    browser = await launchBrowser();
    showId = await stadiumShow(t);
    await holdSeats(t, buyer, showId, ['101-A5', '101-A6', '101-A7']);
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('places 24 sections around the stage, each a named link, in under a second; Tab and Enter open one', async () => {
    const { page, errors, context } = await openPage(browser, t.baseUrl);
    // The map is built once on the server before the page is timed: the page is what is measured.
    expect((await t.http.get(`/v1/shows/${showId}/sections`)).status).toBe(200);
    // Timed in the page: from the sections' answer arriving to the 24th section drawn
    // (what the plan costs), and from navigation (page, show and sections loaded too).
    const visit = async () => {
      await page.goto(`/shows/${showId}`);
      await page.waitForFunction(() => document.querySelectorAll('.plan-section').length === 24, undefined, { polling: 'raf', timeout: 10_000 });
      return page.evaluate(() => {
        const drawn = performance.now();
        const answer = performance.getEntriesByType('resource').find((e) => e.name.includes('/sections'));
        return { render: drawn - (answer as PerformanceResourceTiming).responseEnd, total: drawn };
      });
    };
    const cold = await visit();
    const warm = await visit();
    process.stdout.write(`venue plan, 24 sections of a 60,000-seat stadium: drawn ${cold.render.toFixed(0)} ms after the sections' answer (${cold.total.toFixed(0)} ms after navigation, first visit); ${warm.render.toFixed(0)} ms (${warm.total.toFixed(0)} ms) on the next\n`);
    // The plan's own cost is bounded; the navigation's depends on the service and the machine's load (printed).
    expect(Math.min(cold.render, warm.render)).toBeLessThan(1000);

    const links = page.getByRole('link', { name: /^Section \d{3}, / });
    expect(await links.count()).toBe(24);
    await page.getByRole('link', { name: 'Section 101, 2,497 free of 2,500 seats, €95.00' }).waitFor();
    await page.getByRole('link', { name: 'Section 212, 2,500 free of 2,500 seats, €65.00' }).waitFor();

    // The lower bowl is nearer the stage than the upper one; sections of a ring go round it.
    const stage = await centre(page, '.plan-stage');
    const distance = async (s: string) => {
      const c = await centre(page, `[data-section="${s}"]`);
      return Math.hypot(c.x - stage.x, c.y - stage.y);
    };
    const lower = await Promise.all(['101', '104', '107', '110'].map(distance));
    const upper = await Promise.all(['201', '204', '207', '210'].map(distance));
    for (let i = 0; i < 4; i++) expect(lower[i]!).toBeLessThan(upper[i]!);
    const c101 = await centre(page, '[data-section="101"]');
    const c107 = await centre(page, '[data-section="107"]');
    expect(c101.y).toBeLessThan(stage.y);
    expect(c107.y).toBeGreaterThan(stage.y);
    // Price and availability are in the colour: the two bowls differ.
    const fill = (s: string) => page.locator(`[data-section="${s}"]`).evaluate((el) => getComputedStyle(el).fill);
    expect(await fill('101')).not.toBe(await fill('201'));

    await page.setViewportSize(DESKTOP);
    await screenshotBoth(page, 'venue-plan');
    expect(await seriousViolations(page)).toEqual([]);

    const s105 = page.getByRole('link', { name: /^Section 105, / });
    await tabTo(page, s105, 80);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Section 105' }).waitFor();
    expect(new URL(page.url()).searchParams.get('section')).toBe('105');
    expect(errors).toEqual([]);
    await context.close();
  });

  for (const [name, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    it(`keeps row letters and seat numbers in view wherever a section is scrolled (${name})`, async () => {
      const { page, errors, context } = await openPage(browser, t.baseUrl, viewport);
      await page.goto(`/shows/${showId}?section=201`);
      await page.locator('[data-seat="201-Y100"]').waitFor();
      const scroller = page.locator('.seatmap-scroll');
      const at = async (left: 'start' | 'middle' | 'end', top: 'start' | 'end') => {
        await scroller.evaluate((el, [l, tp]) => {
          el.scrollLeft = l === 'start' ? 0 : l === 'end' ? el.scrollWidth : (el.scrollWidth - el.clientWidth) / 2;
          el.scrollTop = tp === 'start' ? 0 : el.scrollHeight;
        }, [left, top] as const);
        await page.waitForTimeout(50);
        return labelsInView(page);
      };
      for (const left of ['start', 'middle', 'end'] as const) {
        for (const top of ['start', 'end'] as const) {
          const seen = await at(left, top);
          expect(seen.letters.length, `row letters at ${left}/${top}`).toBeGreaterThan(3);
          expect(seen.numbers.length, `seat numbers at ${left}/${top}`).toBeGreaterThan(3);
          if (top === 'end') expect(seen.letters).toContain('Y');
          if (left === 'end') expect(seen.numbers).toContain('100');
          if (left === 'start') expect(seen.numbers).toContain('1');
        }
      }
      // Zoomed out as far as it goes, numbers are still there (fewer of them).
      const out = page.getByRole('button', { name: 'Zoom out' });
      while (await out.isEnabled()) await out.click();
      const zoomedOut = await at('start', 'start');
      expect(zoomedOut.numbers.length).toBeGreaterThan(3);
      expect(zoomedOut.numbers).toContain('1');

      await at('middle', 'start');
      await page.screenshot({ path: `test-results/venue-section-${name}.png` });
      expect(await seriousViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});
