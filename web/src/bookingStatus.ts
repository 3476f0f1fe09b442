// A booking's status and refund in words, and how pages follow a changing booking.
import type { Booking, BookingStatus } from './api/types';
import { money } from './format';

export const STATUS_TEXT: Record<BookingStatus, string> = {
  pending: 'Payment in progress',
  confirmed: 'Confirmed',
  failed: 'Payment declined',
  cancelled: 'Cancelled',
  refunded: 'Refunded',
};

export const statusText = (s: string): string => STATUS_TEXT[s as BookingStatus] ?? s;

const REFUND_TEXT: Record<string, string> = {
  pending: 'on its way',
  succeeded: 'refunded',
  failed: 'could not be paid back automatically; please contact us',
};

export function refundText(b: Booking): string | null {
  if (!b.refund) return null;
  return `Refund of ${money(b.refund.amount, b.currency)}: ${REFUND_TEXT[b.refund.status] ?? b.refund.status}`;
}

/** The wait before asking again: 1 s, 2 s … at most 5 s; longer when the service said Retry-After. */
export const backoffMs = (attempt: number, retryAfterSeconds?: number | null): number =>
  Math.max(Math.min(5000, 1000 * (attempt + 1)), (retryAfterSeconds ?? 0) * 1000);
