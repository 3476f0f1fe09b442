// The waiting room's arithmetic for people: how many are ahead, how long it may take,
// and how often to ask again (every second near the front, up to every 30 s far back).
// (Imports carry `.js` so the tests, type-checked as Node ESM, can import this file too.)
import type { QueueJoin, QueueStatus } from './api/types.js';

/** Admissions still needed before this place is served (0: it may be admitted now). */
export const admissionsBefore = (position: number, serving: number): number => Math.max(0, position - serving);

/** People in the queue in front of this place. */
export const peopleAhead = (position: number, serving: number): number => Math.max(0, position - serving - 1);

/**
 * This place counted from the front of those still waiting (1: next), the number a
 * buyer is shown: the drawn position counts people long since admitted, so "place 2,
 * 0 ahead of you" was shown once the first was served.
 */
export const placeInLine = (position: number, serving: number): number => peopleAhead(position, serving) + 1;

/** Seconds until this place is served at the current rate; null while the rate is unknown (null or 0). */
export function secondsToFront(position: number, s: QueueStatus): number | null {
  const n = admissionsBefore(position, s.serving);
  if (n === 0) return 0;
  if (!s.admit_rate_per_minute || s.admit_rate_per_minute <= 0) return null;
  return (n / s.admit_rate_per_minute) * 60;
}

export function estimateText(seconds: number | null): string {
  if (seconds === null) return 'unknown';
  if (seconds < 60) return 'less than a minute';
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `about ${minutes} minute${minutes === 1 ? '' : 's'}`;
  return `about ${Math.round(minutes / 60)} hours`;
}

/**
 * Milliseconds until the next poll: 1 s within a minute of being served; further back,
 * half the time left beyond that minute (so a poll never lands past it), at most 30 s.
 */
export function pollDelayMs(place: QueueJoin | null, s: QueueStatus | null): number {
  if (!s) return 2000;
  if (s.opened === false && s.sale_opens_at) {
    const toOpen = (Date.parse(s.sale_opens_at) - Date.now()) / 1000;
    return Math.round(Math.min(30, Math.max(1, toOpen)) * 1000);
  }
  if (s.paused || s.sold_out) return 5000;
  if (!place || place.position === null) return 1000;
  const left = secondsToFront(place.position, s);
  if (left === null) return 5000;
  if (left <= 60) return 1000;
  return Math.round(Math.min(30, Math.max(1, (left - 60) / 2)) * 1000);
}
