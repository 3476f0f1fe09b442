// The web app and /docs run under the Content-Security-Policy the service sends
// (src/http/securityHeaders.ts) with no violation, and the browser helper's
// detector (test/support/browser.ts) does see one: an inline script is refused.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.js';
import { createShow } from '../support/catalog.js';
import { launchBrowser, openPage, describeInBrowser } from '../support/browser.js';

describeInBrowser('web app: Content-Security-Policy', () => {
  let t: TestService;
  let browser: Browser;
  let showId: string;
  beforeAll(async () => {
    t = await startTestService({ pglite: true, sweeper: false });
    ({ showId } = await createShow(t, { city: 'Lyon', rows: 3, seatsPerRow: 6 }));
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('refuses an inline script on a page of the app, and the helper fails the test for it', async () => {
    const { page, context, cspViolations } = await openPage(browser, t.baseUrl);
    await page.goto('/');
    await page.getByRole('heading', { name: 'Test Film' }).waitFor();
    const ran = await page.evaluate(async () => {
      const s = document.createElement('script');
      s.textContent = 'window.inlineRan = true';
      document.body.append(s);
      await new Promise((r) => setTimeout(r, 100));
      return (window as unknown as { inlineRan?: boolean }).inlineRan ?? false;
    });
    expect(ran).toBe(false);
    await expect.poll(() => cspViolations.length).toBeGreaterThan(0);
    expect(cspViolations[0]).toMatch(/^script-src-elem refused inline/);
    await expect(context.close()).rejects.toThrow(/broke its Content-Security-Policy/);
  });

  it('draws the home page, a show with its seat map, and /docs without a violation', async () => {
    const { page, context, errors } = await openPage(browser, t.baseUrl);
    await page.goto('/');
    await page.getByRole('heading', { name: 'Test Film' }).waitFor();
    await page.goto(`/shows/${showId}`);
    await page.getByRole('checkbox', { name: /^Row A, seat 1,/ }).waitFor();
    await page.goto('/docs');
    await page.getByText('boxoffice').first().waitFor();
    await page.locator('.opblock').first().waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
