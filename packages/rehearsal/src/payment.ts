// A buyer pays for a hold: the payment method drawn from the configured mix, the
// booking retried under the same Idempotency-Key until its answer is definitive,
// a `pending` booking polled to its end, a decline retried once with another card.
import type { Random } from '@boxoffice/paysim';
import type { BuyerHttp } from './http.js';
import type { Recorder } from './recorder.js';

export interface PaymentMix { declineRate: number; slowRate: number; timeoutRate: number }

export type PaymentEnd = 'confirmed' | 'lost' | 'gave_up' | 'unknown';

export interface PayContext {
  http: BuyerHttp;
  rec: Recorder;
  mix: PaymentMix;
  random: Random;
  stopAt: number;
  /** Booking ids this buyer was given, for the audit. */
  bookings: string[];
  keyPrefix: string;
}

const BOOKING_TIMEOUT_MS = 15_000; // past the service's 10 s wait for the provider's first answer
const POLL_MS = 1000;
const POLL_FOR_MS = 60_000;

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A payment method by the mix: declined, slow, a lost answer (half of them for a charge that succeeded), else the happy card. */
export function pickMethod(mix: PaymentMix, random: Random): string {
  const x = random();
  if (x < mix.declineRate) return 'pm_card_declined';
  if (x < mix.declineRate + mix.slowRate) return 'pm_card_slow';
  if (x < mix.declineRate + mix.slowRate + mix.timeoutRate) return random() < 0.5 ? 'pm_card_timeout_succeeds' : 'pm_card_timeout_fails';
  return 'pm_card_visa';
}

/** Polls a pending booking until its outcome is known (or a minute passed). */
async function pollBooking(c: PayContext, token: string, id: string): Promise<string> {
  const until = performance.now() + POLL_FOR_MS;
  while (performance.now() < until) {
    await sleep(POLL_MS);
    const r = await c.http.send('booking status', 'GET', `/v1/bookings/${id}`, { token });
    if (r?.status === 200 && r.body.status !== 'pending') return r.body.status as string;
  }
  return 'pending';
}

/**
 * Books `holdId`: 'confirmed'; 'lost' when the hold expired or its payment was refunded
 * (choose seats again); 'gave_up' after declines; 'unknown' when the outcome stayed pending.
 */
export async function pay(c: PayContext, token: string, holdId: string, seats: number, gate: Record<string, string>): Promise<PaymentEnd> {
  let method = pickMethod(c.mix, c.random);
  for (let attempt = 0; attempt < 3; attempt++) {
    const key = `${c.keyPrefix}-${attempt}`;
    for (;;) {
      if (performance.now() > c.stopAt) return 'unknown';
      const k = await c.http.send('booking', 'POST', '/v1/bookings', {
        token, body: { hold_id: holdId, payment_method: method }, headers: { ...gate, 'idempotency-key': key }, timeoutMs: BOOKING_TIMEOUT_MS,
      });
      if (!k) continue; // the same key again: a replay never charges twice
      if (k.status === 503 || k.status === 429 || (k.status === 409 && k.body?.code === 'IDEMPOTENCY_KEY_IN_FLIGHT')) {
        await sleep(k.retryAfter * 1000);
        continue;
      }
      if (k.status === 409 && k.body?.code === 'HOLD_EXPIRED') return 'lost';
      if (k.status !== 201) return 'gave_up';
      c.bookings.push(k.body.booking_id as string);
      let status = k.body.status as string;
      if (status === 'pending') status = await pollBooking(c, token, k.body.booking_id as string);
      if (status === 'confirmed') {
        c.rec.count('bookings');
        c.rec.count('seatsSold', seats);
        return 'confirmed';
      }
      if (status === 'refunded') return 'lost';
      if (status === 'pending') return 'unknown';
      break; // failed: declined; another card, a new key
    }
    method = 'pm_card_visa';
  }
  return 'gave_up';
}
