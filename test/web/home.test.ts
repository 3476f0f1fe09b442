// The web app is served at `/`: what's on, searchable, with no console errors or serious
// accessibility violations. API clients asking for unknown routes still get problem+json.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.js';
import { createShow } from '../support/catalog.js';
import { launchBrowser, openPage, screenshotBoth, seriousViolations, describeInBrowser } from '../support/browser.js';

describeInBrowser('web app: home', () => {
  let t: TestService;
  let browser: Browser;
  beforeAll(async () => {
    t = await startTestService({ pglite: true });
    await createShow(t, { city: 'Lyon' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('lists what is on and finds an event by title', async () => {
    const { page, errors, context } = await openPage(browser, t.baseUrl);
    await page.goto('/');
    await expect(page.getByRole('heading', { name: 'Test Film' }).waitFor()).resolves.toBeUndefined();
    await page.getByLabel('Title').fill('no such title');
    await page.getByText('No events match.').waitFor();
    await page.getByLabel('Title').fill('test');
    await page.getByRole('heading', { name: 'Test Film' }).waitFor();
    await screenshotBoth(page, 'home');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('draws a page for any address a browser navigates to; an API client still gets a 404 problem', async () => {
    const { page, context } = await openPage(browser, t.baseUrl);
    const answer = await page.goto('/no/such/page');
    expect(answer?.status()).toBe(200);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await context.close();
    const api = await fetch(`${t.baseUrl}/no/such/page`);
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toContain('application/problem+json');
  });

  it('serves the built script pre-compressed', async () => {
    const html = await (await fetch(`${t.baseUrl}/`)).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const res = await fetch(`${t.baseUrl}${script}`, { headers: { 'accept-encoding': 'br' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(res.headers.get('cache-control')).toContain('immutable');
  });
});
