// Shared helpers of the booking, ticket, check-in and cancellation tests (not a test file).
import { expect } from 'vitest';
import type { HttpAnswer } from '../support/http.js';
import { describeAnswer } from '../support/problems.js';
export { expectProblem } from '../support/problems.js';
import type { TestService } from '../support/service.js';
import type { Buyer } from '../support/catalog.js';
import { registerBuyers } from '../support/catalog.js';
import { startTestService } from '../support/service.js';

/** Polls `f` until it returns something truthy; throws after `ms`. */
export async function until<T>(what: string, f: () => Promise<T | null | undefined | false>, ms = 20_000, everyMs = 100): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function expectStatus(r: HttpAnswer, status: number): void {
  expect(r.status, describeAnswer(r)).toBe(status);
}

/** POST /v1/shows/{id}/holds that must succeed; the hold id. */
export async function holdSeats(t: TestService, showId: string, seats: readonly string[], token: string): Promise<string> {
  const r = await t.http.post(`/v1/shows/${showId}/holds`, { seats }, token);
  expectStatus(r, 201);
  return r.body.hold_id as string;
}

/** POST /v1/bookings with an Idempotency-Key (pass null to send none). */
export function postBooking(t: TestService, body: unknown, token: string | undefined, key: string | null): Promise<HttpAnswer> {
  return t.http.post('/v1/bookings', body, token, key === null ? {} : { 'idempotency-key': key });
}

let keySeq = 0;
export const newKey = (tag = 'k') => `${tag}-${process.pid}-${Date.now()}-${++keySeq}`;

/** Holds the seats and pays with pm_card_visa; the confirmed booking's body. */
export async function confirmedBooking(t: TestService, showId: string, seats: readonly string[], token: string): Promise<{ booking_id: string; hold_id: string; [k: string]: unknown }> {
  const holdId = await holdSeats(t, showId, seats, token);
  const r = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_visa' }, token, newKey('confirm'));
  expectStatus(r, 201);
  expect(r.body.status, describeAnswer(r)).toBe('confirmed');
  return r.body;
}

/** The simulator's PaymentIntents whose metadata names this booking or hold. */
export function paymentIntentsFor(t: TestService, by: { bookingId?: string; holdId?: string }) {
  return t.simulator!.ctx.store.paymentIntents.all().filter((pi) =>
    (by.bookingId !== undefined && pi.metadata.booking_id === by.bookingId) || (by.holdId !== undefined && pi.metadata.hold_id === by.holdId));
}

/** The simulator's refunds whose metadata names this booking. */
export function refundsFor(t: TestService, bookingId: string) {
  return t.simulator!.ctx.store.refunds.all().filter((r) => r.metadata.booking_id === bookingId);
}

/** Every outbox row delivered (nothing left for the relay to do). */
export async function outboxSettled(t: TestService): Promise<boolean> {
  const r = await t.service.ctx.db.query<{ open: string | number }>('select count(*) as open from outbox where done_at is null');
  return Number(r.rows[0]!.open) === 0;
}

/** A registered user promoted to `staff` by the admin, signed in again. */
export async function staffUser(t: TestService): Promise<Buyer> {
  const [u] = await registerBuyers(t, 1);
  const promoted = await t.http.post(`/v1/admin/users/${u!.userId}/role`, { role: 'staff' }, t.adminToken);
  expectStatus(promoted, 200);
  const session = await t.http.post('/v1/sessions', { email: u!.email, password: 'password-123' });
  expectStatus(session, 200);
  expect(session.body.role).toBe('staff');
  return { ...u!, token: session.body.token as string };
}

/** Waits until the booking has one ticket per seat; its tickets. */
export async function waitForTickets(t: TestService, bookingId: string, seatCount: number, token: string) {
  return until(`${seatCount} tickets of ${bookingId}`, async () => {
    const r = await t.http.get(`/v1/bookings/${bookingId}/tickets`, token);
    expectStatus(r, 200);
    return r.body.tickets.length === seatCount ? (r.body.tickets as TicketView[]) : null;
  });
}

export interface TicketView {
  ticket_id: string;
  seat: string;
  code: string;
  qr_svg_url: string;
  qr_png_url: string;
}

/**
 * The shared PostgreSQL server of this machine may run out of connections while
 * other suites and benchmarks run (53300 "too many clients", which the service
 * answers as 503 OVERLOADED). Set-up steps retry on that for a while; the tests
 * themselves do not.
 */
export async function retrying<T>(what: string, f: () => Promise<T>, ms = 45_000): Promise<T> {
  const end = Date.now() + ms;
  for (let delay = 250; ; delay = Math.min(delay * 2, 4000)) {
    try {
      return await f();
    } catch (err) {
      const text = String((err as Error)?.message ?? err);
      if (!/too many clients|OVERLOADED|got 503/.test(text) || Date.now() + delay > end) throw err;
      console.warn(`${what}: ${text.slice(0, 120)}; retrying in ${delay} ms`);
      await sleep(delay);
    }
  }
}

/** startTestService with a modest pool (the PostgreSQL server is shared) and set-up retries. */
export function startService(opts: Parameters<typeof startTestService>[0] = {}): Promise<TestService> {
  return retrying('starting the service', () => startTestService({ ...opts, config: { poolSize: 8, ...opts.config } }));
}

/**
 * Closes the service. A request in flight when close() begins (typically the
 * simulator's webhook POST) leaves a keep-alive socket that Node's one-shot
 * idle reaping misses, so close() would wait for the 72 s keep-alive timeout;
 * reaping idle sockets until it resolves lets that request finish and then ends it.
 */
export async function closeService(t: TestService | undefined): Promise<void> {
  if (!t) return;
  const reap = setInterval(() => t.service.app.server.closeIdleConnections(), 100);
  try {
    await t.close();
  } finally {
    clearInterval(reap);
  }
}
