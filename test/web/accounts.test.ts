// Sign-up and sign-in pages: the API's refusals shown by the form (VALIDATION_FAILED
// beside each field, EMAIL_TAKEN, INVALID_CREDENTIALS, 429 with its wait), success
// lands on `?next=` when it is a path on this site, else on the home page.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestService, type TestService } from '../support/service.js';
import { registerBuyers, type Buyer } from '../support/catalog.js';
import { launchBrowser, openPage, screenshotBoth, seriousViolations, describeInBrowser } from '../support/browser.js';
import { loadConfig } from '../../src/config.js';

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

const storedSession = (page: import('playwright-core').Page) =>
  page.evaluate(() => JSON.parse(localStorage.getItem('boxoffice.session') ?? 'null') as { user_id: string; role: string } | null);

describeInBrowser('web app: sign-up', () => {
  it('shows each invalid field, then creates the account and lands on next', async () => {
    const { page, errors, context } = await openPage(browser, t.baseUrl);
    await page.goto('/signup?next=%2Fbookings');
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    await page.getByLabel('Email').fill('not-an-email');
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('Please correct the 2 fields below.').waitFor();
    await expect(page.getByLabel('Password').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.getByLabel('Email').getAttribute('aria-invalid')).resolves.toBe('true');
    expect(await page.locator('#error-password').textContent()).toBe('Use at least 8 characters.');
    expect(await page.locator('#error-email').textContent()).toBe('Enter an email address, like name@example.com.');
    await screenshotBoth(page, 'signup-errors');
    expect(await seriousViolations(page)).toEqual([]);

    const email = `new-${Date.now()}@example.test`;
    await page.getByLabel('Name').fill('Ada');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('correct-horse-1');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'My bookings' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/bookings');
    expect(await storedSession(page)).toMatchObject({ role: 'user', user_id: expect.any(String) });
    await expect(page.getByRole('button', { name: 'Sign out' }).isVisible()).resolves.toBe(true);
    expect(errors.filter((e) => !/status of 40\d/.test(e))).toEqual([]);
    await context.close();
  });

  it('says the email is taken', async () => {
    const { page, context } = await openPage(browser, t.baseUrl);
    await page.goto('/signup');
    await page.getByLabel('Email').fill(buyer.email);
    await page.getByLabel('Password').fill('password-123');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('alert').getByText('An account with this email already exists: sign in instead.').waitFor();
    await context.close();
  });
});

describeInBrowser('web app: sign-in', () => {
  it('says when the credentials are wrong, then signs in and lands on next', async () => {
    const { page, errors, context } = await openPage(browser, t.baseUrl);
    await page.goto('/signin?next=%2Fbookings');
    await page.getByLabel('Email').fill(buyer.email);
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('The email or the password is wrong.').waitFor();
    await screenshotBoth(page, 'signin-error');
    expect(await seriousViolations(page)).toEqual([]);
    // The link to sign up keeps where the buyer was going.
    expect(await page.getByRole('link', { name: 'Create an account' }).getAttribute('href')).toBe('/signup?next=%2Fbookings');

    await page.getByLabel('Password').fill('password-123');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'My bookings' }).waitFor();
    expect(await storedSession(page)).toMatchObject({ user_id: buyer.userId, role: 'user' });
    // The browser logs the 401 of the wrong password as a failed resource; nothing else.
    expect(errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
    await context.close();
  });

  it('never follows next to another origin', async () => {
    for (const next of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
      const { page, context } = await openPage(browser, t.baseUrl);
      await page.goto(`/signin?next=${encodeURIComponent(next)}`);
      await page.getByLabel('Email').fill(buyer.email);
      await page.getByLabel('Password').fill('password-123');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: "What's on" }).waitFor();
      expect(page.url()).toBe(`${t.baseUrl}/`);
      await context.close();
    }
  });

  it('asks to wait when sign-in is rate-limited (429 Retry-After)', async () => {
    const limited = await startTestService({
      pglite: true, sweeper: false,
      config: { rateLimitExempt: [], rateLimits: { ...loadConfig({}).rateLimits, signInFreeFailures: 0, signInLockSeconds: 60, signInLockMaxSeconds: 60 } },
    });
    try {
      const [b] = (await registerBuyers(limited, 1)) as [Buyer];
      // One wrong password from this address (the browser's too) locks it out of the account for a minute.
      expect((await limited.http.post('/v1/sessions', { email: b.email, password: 'wrong-password' })).status).toBe(401);
      const { page, context } = await openPage(browser, limited.baseUrl);
      await page.goto('/signin');
      await page.getByLabel('Email').fill(b.email);
      await page.getByLabel('Password').fill('password-123');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').getByText(/Too many attempts: try again in \d+ s\./).waitFor();
      await context.close();
    } finally {
      await limited.close();
    }
  });
});
