// A hall whose layout places its sections is drawn as placed: each placed section's shape
// covers the rectangle the layout gave (a 1000 × 1000 box stretched onto the plan), the
// others still go in derived rings; a hall that places none gets the derived plan whole.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.js';
import { launchBrowser, openPage, screenshotBoth, seriousViolations, describeInBrowser } from '../support/browser.js';

const rows = ['101', '102', '103', '201', '202', '203'].map((section) => ({ row: 'A', seats: 10, tier: section < '200' ? 'lower' : 'upper', section }));
const placed = {
  '201': { x: 40, y: 40, w: 260, h: 140 },
  '103': { x: 650, y: 780, w: 300, h: 160 },
  '202': { x: 780, y: 80, w: 160, h: 160, angle: 45 },
};

async function showOf(t: TestService, layout: unknown): Promise<string> {
  const post = async (path: string, body: unknown) => {
    const r = await t.http.post(path, body, t.adminToken);
    if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  const venue = await post('/v1/admin/venues', { name: 'Arena Plan', city: 'Lyon', timezone: 'Europe/Paris' });
  const hall = await post('/v1/admin/halls', { venue_id: venue.id, name: 'Bowl', layout });
  const event = await post('/v1/admin/events', { title: 'Placed Night', kind: 'concert', duration_minutes: 120 });
  const show = await post('/v1/admin/shows', {
    event_id: event.id, hall_id: hall.id, starts_at: new Date(Date.now() + 3 * 86_400_000).toISOString(),
    currency: 'EUR', price_tiers: { lower: 9500, upper: 6500 }, per_user_limit: 4,
  });
  return show.id as string;
}

type Box = { x: number; y: number; width: number; height: number };

/** Where the layout's rectangle (unturned) lands on screen, through the plan's own transform. */
function expectedBox(page: Page, r: { x: number; y: number; w: number; h: number }): Promise<Box> {
  return page.evaluate((r) => {
    const svg = document.querySelector('.venue-plan svg[role="group"]') as SVGSVGElement;
    const m = svg.getScreenCTM()!;
    const [w, h] = [svg.viewBox.baseVal.width / 1000, svg.viewBox.baseVal.height / 1000];
    const a = new DOMPoint(r.x * w, r.y * h).matrixTransform(m);
    const b = new DOMPoint((r.x + r.w) * w, (r.y + r.h) * h).matrixTransform(m);
    return { x: a.x, y: a.y, width: b.x - a.x, height: b.y - a.y };
  }, r);
}

async function boxOf(page: Page, section: string): Promise<Box> {
  const b = await page.locator(`[data-section="${section}"]`).boundingBox();
  if (!b) throw new Error(`section ${section} is not drawn`);
  return b;
}

const centreOf = (b: Box) => ({ x: b.x + b.width / 2, y: b.y + b.height / 2 });

describeInBrowser('web app: sections drawn where the layout places them', () => {
  let t: TestService;
  let browser: Browser;
  let placedShow: string;
  let derivedShow: string;
  beforeAll(async () => {
    t = await startTestService({ pglite: true });
    browser = await launchBrowser();
    placedShow = await showOf(t, { rows, sections: Object.entries(placed).map(([section, plan]) => ({ section, plan })) });
    derivedShow = await showOf(t, { rows });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('draws a placed section on its rectangle, a turned one about its centre, the rest in rings', async () => {
    const { page, errors, context } = await openPage(browser, t.baseUrl);
    await page.goto(`/shows/${placedShow}`);
    await page.waitForFunction(() => document.querySelectorAll('.plan-section').length === 6, undefined, { timeout: 10_000 });
    for (const section of ['201', '103'] as const) {
      const drawn = await boxOf(page, section);
      const want = await expectedBox(page, placed[section]);
      const what = `${section}: drawn ${JSON.stringify(drawn)}, placed ${JSON.stringify(want)}`;
      // The same centre; the drawn box is the rectangle plus its outline (Chromium counts
      // a stroke's mitred corners: a few pixels each side), never smaller.
      expect(Math.abs(centreOf(drawn).x - centreOf(want).x), what).toBeLessThan(1.5);
      expect(Math.abs(centreOf(drawn).y - centreOf(want).y), what).toBeLessThan(1.5);
      for (const k of ['width', 'height'] as const) {
        expect(drawn[k] - want[k], what).toBeGreaterThanOrEqual(0);
        expect(drawn[k] - want[k], what).toBeLessThan(10);
      }
    }
    // Turned 45°: the same centre, a box wider than the unturned one.
    const turned = await boxOf(page, '202');
    const unturned = await expectedBox(page, placed['202']);
    expect(Math.abs(centreOf(turned).x - centreOf(unturned).x)).toBeLessThan(2);
    expect(Math.abs(centreOf(turned).y - centreOf(unturned).y)).toBeLessThan(2);
    expect(turned.width).toBeGreaterThan(unturned.width * 1.2);
    // The unplaced ones are wedges (arcs) round the stage; placed ones are not.
    expect(await page.locator('[data-section="101"]').getAttribute('d')).toContain('A');
    expect(await page.locator('[data-section="201"]').getAttribute('d')).not.toContain('A');
    // Each is still a link named with its free seats and price.
    await page.getByRole('link', { name: 'Section 201, 10 free of 10 seats, €65.00' }).waitFor();
    await screenshotBoth(page, 'venue-plan-placed');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('derives the whole plan for a hall that places no section', async () => {
    const { page, errors, context } = await openPage(browser, t.baseUrl);
    await page.goto(`/shows/${derivedShow}`);
    await page.waitForFunction(() => document.querySelectorAll('.plan-section').length === 6, undefined, { timeout: 10_000 });
    const stage = centreOf((await page.locator('.plan-stage').boundingBox())!);
    const distance = async (s: string) => {
      const c = centreOf(await boxOf(page, s));
      return Math.hypot(c.x - stage.x, c.y - stage.y);
    };
    for (const [lower, upper] of [['101', '201'], ['102', '202'], ['103', '203']] as const) expect(await distance(lower)).toBeLessThan(await distance(upper));
    for (const s of ['101', '201', '202']) expect(await page.locator(`[data-section="${s}"]`).getAttribute('d')).toContain('A');
    await screenshotBoth(page, 'venue-plan-derived');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
