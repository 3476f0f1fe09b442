// Browser-test helpers for the buyer's pages (not a test file): a signed-in tab, a hold
// made through the API, moving focus with the Tab key only.
import type { Page, Locator } from 'playwright-core';
import type { TestService } from '../support/service.js';
import type { Buyer } from '../support/catalog.js';

/** Signs the tab in as `buyer` the way the sign-in page does (the session in localStorage). */
export async function signInTab(page: Page, buyer: Buyer): Promise<void> {
  await page.goto('/');
  await page.evaluate((s) => localStorage.setItem('boxoffice.session', JSON.stringify(s)), { user_id: buyer.userId, token: buyer.token, role: 'user' });
}

export async function holdSeats(t: TestService, buyer: Buyer, showId: string, seats: string[], headers: Record<string, string> = {}): Promise<string> {
  const r = await t.http.post(`/v1/shows/${showId}/holds`, { seats }, buyer.token, headers);
  if (r.status !== 201) throw new Error(`hold: ${r.status} ${r.text}`);
  return r.body.hold_id as string;
}

const isFocused = (l: Locator) => l.evaluate((el) => el === document.activeElement).catch(() => false);

/** Presses Tab until `target` has the focus (at most `max` presses); fails otherwise. */
export async function tabTo(page: Page, target: Locator, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await isFocused(target)) return;
    await page.keyboard.press('Tab');
  }
  if (!(await isFocused(target))) throw new Error(`Tab never reached ${target.toString()}`);
}
