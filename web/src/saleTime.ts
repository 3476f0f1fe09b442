// Whether a show's sale has opened yet, and the time left to the opening in words.
// (Imports carry `.js` so the tests, type-checked as Node ESM, can import this file too.)
import type { Show } from './api/types.js';

/** The show's `sale_opens_at` while it is still ahead of `now`, else null (the sale is open). */
export function saleOpensAt(show: Show | null, now = Date.now()): string | null {
  const at = show?.sale_opens_at ?? null;
  return at !== null && Date.parse(at) > now ? at : null;
}

/** "2 days 3 h", "1 h 05 min", "4:09": the time left to the opening, in whole seconds. */
export function untilText(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  const days = Math.floor(s / 86_400);
  const hours = Math.floor((s % 86_400) / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  if (days > 0) return `${days} day${days === 1 ? '' : 's'} ${hours} h`;
  if (hours > 0) return `${hours} h ${String(minutes).padStart(2, '0')} min`;
  return `${minutes}:${String(s % 60).padStart(2, '0')}`;
}
