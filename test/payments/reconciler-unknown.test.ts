// The reconciler asks the provider again about a payment whose outcome is unknown
// (its answer was lost or late). While the provider does not know yet, cannot be
// reached or answers too late, the booking stays pending; it is confirmed once the
// provider says the payment succeeded. An inconclusive check is never a failure:
// the money may have been taken. The passes are run by the test (the workers are
// off, and so are webhooks), so only the reconciler decides.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { holdSeats, newKey, paymentIntentsFor, postBooking, until } from '../bookings/helpers.js';
import { reconcilePayments } from '../../src/workers/reconciler.js';
import { NO_CHAOS } from '@boxoffice/paysim';

// The first answer is late (the charge takes longer than the service waits), and a
// reconciler check waits no longer than that either.
const PAYMENT_TIMEOUT_MS = 300;
const SLOW_MS = 2500;

let t: TestService;
let showId: string;
let buyer: Buyer;

beforeAll(async () => {
  t = await startTestService({
    payments: { timing: { slowMs: SLOW_MS } },
    workers: false,
    config: { paymentTimeoutMs: PAYMENT_TIMEOUT_MS, reconcileBaseSeconds: 0.02 },
  });
  t.simulator!.ctx.webhooks.setEndpoint(null);
  ({ showId } = await createShow(t, { rows: 1, seatsPerRow: 4 }));
  [buyer] = (await registerBuyers(t, 1)) as [Buyer];
});
afterAll(async () => {
  await t?.close();
});

const attemptOf = async (bookingId: string) =>
  (await t.service.ctx.db.query<{ status: string; checks: number }>('select status, checks from payment_attempts where booking_id = $1', [bookingId])).rows[0]!;
const bookingStatus = async (bookingId: string) => {
  const r = await t.http.get(`/v1/bookings/${bookingId}`, buyer.token);
  expect(r.status, r.text).toBe(200);
  return r.body.status as string;
};

/** One reconciler pass that takes the attempt (waiting for its backoff to end); the attempt after it. */
async function checkAgain(bookingId: string) {
  const before = (await attemptOf(bookingId)).checks;
  await until('a reconciler pass that checks the attempt', async () => (await reconcilePayments(t.service.ctx, t.service.ctx.db)) > 0, 5000, 10);
  const after = await attemptOf(bookingId);
  expect(after.checks, 'the pass asked the provider about this attempt').toBe(before + 1);
  return after;
}

describe('the reconciler with an unknown payment outcome', () => {
  it('keeps the booking pending while the provider does not know, cannot be reached or answers late, then confirms it', async () => {
    const holdId = await holdSeats(t, showId, ['A1'], buyer.token);
    const booked = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_slow' }, buyer.token, newKey('unknown'));
    expect(booked.status, booked.text).toBe(201);
    expect(booked.body.status).toBe('pending');
    const bookingId = booked.body.booking_id as string;
    const intent = () => paymentIntentsFor(t, { bookingId });
    const chaos = t.simulator!.ctx.chaos;

    // The provider is still processing the charge: the same request again is answered 409 (key in use).
    for (let i = 0; i < 2; i++) {
      expect(await checkAgain(bookingId)).toMatchObject({ status: 'unknown' });
      expect(await bookingStatus(bookingId)).toBe('pending');
    }
    expect(intent().map((pi) => pi.status), 'the provider was still processing during those checks').toEqual(['processing']);

    // The charge went through, but the provider cannot be reached (500 to every request).
    await until('the provider to take the money', async () => intent()[0]?.status === 'succeeded', SLOW_MS + 5000, 50);
    chaos.update({ error_rate: 1 });
    for (let i = 0; i < 2; i++) {
      expect(await checkAgain(bookingId)).toMatchObject({ status: 'unknown' });
      expect(await bookingStatus(bookingId)).toBe('pending');
    }

    // Reachable again, but its answers come later than the reconciler waits.
    chaos.update({ error_rate: 0, latency_ms: PAYMENT_TIMEOUT_MS * 3 });
    expect(await checkAgain(bookingId)).toMatchObject({ status: 'unknown' });
    expect(await bookingStatus(bookingId)).toBe('pending');

    // The provider answers: succeeded.
    chaos.update(NO_CHAOS);
    expect(await checkAgain(bookingId)).toMatchObject({ status: 'succeeded' });
    expect(await bookingStatus(bookingId)).toBe('confirmed');
    expect(intent()).toHaveLength(1); // asked five times, charged once
    expect(await reconcilePayments(t.service.ctx, t.service.ctx.db), 'nothing left to reconcile').toBe(0);
  }, 20_000);
});
