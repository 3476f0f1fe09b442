// Rough edges of a first visit: a short wrong password at sign-in is a wrong password
// (the 8-character rule is sign-up's), and an event address that leads nowhere says so.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.js';
import { registerBuyers, type Buyer } from '../support/catalog.js';
import { launchBrowser, openPage, seriousViolations, describeInBrowser } from '../support/browser.js';

let t: TestService;
let browser: Browser;
let buyer: Buyer;
beforeAll(async () => {
  t = await startTestService({ pglite: true, sweeper: false });
  [buyer] = (await registerBuyers(t, 1)) as [Buyer];
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describeInBrowser('web app: a first visit', () => {
  it('answers a wrong password shorter than 8 characters as a wrong password', async () => {
    const { page, errors, context } = await openPage(browser, t.baseUrl);
    await page.goto('/signin');
    await page.getByLabel('Email').fill(buyer.email);
    await page.getByLabel('Password').fill('short1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('The email or the password is wrong.', { exact: true }).waitFor();
    expect(await page.getByText('Use at least 8 characters').count()).toBe(0);
    await expect(page.getByLabel('Password').getAttribute('aria-invalid')).resolves.toBeNull();
    // What is wrong with the email is still said beside it.
    await page.getByLabel('Email').fill('not-an-email');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('Please correct the field below.', { exact: true }).waitFor();
    expect(await page.locator('#error-email').textContent()).toBe('Enter an email address, like name@example.com.');
    expect(await page.locator('#error-password').count()).toBe(0);
    expect(errors.filter((e) => !/status of 40\d/.test(e))).toEqual([]);
    await context.close();
  });

  it('says an unknown event is not found', async () => {
    const { page, errors, context } = await openPage(browser, t.baseUrl);
    await page.goto('/events/evt_no_such_event');
    await page.getByRole('heading', { level: 1, name: 'Event not found' }).waitFor();
    await page.getByRole('link', { name: "See what's on" }).waitFor();
    expect(await page.getByText('No upcoming shows').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
