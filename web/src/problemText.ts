// What to tell a person when a request fails: the API's problem in plain words,
// "busy, try again in N s" for 503/429, and a network failure as such.
import { ApiError } from './api/client';

/** True when the request never got an answer (offline, connection reset). */
export const isNetworkError = (e: unknown): boolean => !(e instanceof ApiError) && e instanceof TypeError;

export function busyText(e: ApiError): string {
  const wait = e.retryAfterSeconds ?? (typeof e.problem.retry_after_seconds === 'number' ? e.problem.retry_after_seconds : null);
  const when = wait ? `in ${wait} s` : 'in a moment';
  return e.status === 429 ? `Too many attempts: try again ${when}.` : `The service is busy: try again ${when}.`;
}

/** A sentence for any failure; `known` overrides the text for particular error codes. */
export function problemText(e: unknown, known: Record<string, string> = {}): string {
  if (e instanceof ApiError) {
    if (known[e.code]) return known[e.code]!;
    if (e.status === 429 || e.status === 503) return busyText(e);
    if (e.code === 'UNAUTHENTICATED') return 'Your session has ended: please sign in again.';
    const d = e.problem.detail?.replace(/\.$/, '');
    return d ? `${d[0]!.toUpperCase()}${d.slice(1)}.` : (e.problem.title ?? 'Something went wrong.');
  }
  if (isNetworkError(e)) return 'The service could not be reached. Check your connection and try again.';
  return 'Something went wrong.';
}

/** "Payment declined: your card has insufficient funds." from a failed booking's `failure`. */
export function declinedText(failure?: { code: string; message: string }): string {
  const why = failure?.message.trim().replace(/\.$/, '');
  return why ? `Payment declined: ${why[0]!.toLowerCase()}${why.slice(1)}.` : 'Payment declined.';
}
