// What the audit reads after the run, only through the public API and the payment
// simulator's Stripe list calls: every PaymentIntent and refund (newest first, page
// by page with starting_after), each booking they or the buyers name (as admin),
// each show's seat map and stats, and every hold the buyers made (as its owner).
import Stripe from 'stripe';
import { DEFAULT_SECRET_KEY as SIMULATOR_SECRET_KEY } from '@boxoffice/paysim';
import type { Books, BookingRecord, ChargeRecord, HoldRecord, MapRecord, RefundRecord } from './audit.js';
import { api } from './setup.js';

const CONCURRENCY = 32;

/** Runs `fn` over `items`, at most CONCURRENCY at once. */
export async function each<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  }));
  return out;
}

function bank(paysimUrl: string): Stripe {
  const url = new URL(paysimUrl);
  return new Stripe(SIMULATOR_SECRET_KEY, { maxNetworkRetries: 2, timeout: 30_000, host: url.hostname, port: url.port || 80, protocol: url.protocol === 'https:' ? 'https' : 'http' });
}

async function charges(stripe: Stripe): Promise<ChargeRecord[]> {
  const out: ChargeRecord[] = [];
  for (let after: string | undefined; ;) {
    const page = await stripe.paymentIntents.list({ limit: 100, ...(after ? { starting_after: after } : {}) });
    for (const pi of page.data) {
      out.push({ id: pi.id, status: pi.status, amount: pi.amount, currency: pi.currency.toUpperCase(), bookingId: pi.metadata.booking_id || null, holdId: pi.metadata.hold_id || null });
    }
    if (!page.has_more || page.data.length === 0) return out;
    after = page.data[page.data.length - 1]!.id;
  }
}

async function refunds(stripe: Stripe): Promise<RefundRecord[]> {
  const out: RefundRecord[] = [];
  for (let after: string | undefined; ;) {
    const page = await stripe.refunds.list({ limit: 100, ...(after ? { starting_after: after } : {}) });
    for (const r of page.data) {
      const pi = typeof r.payment_intent === 'string' ? r.payment_intent : r.payment_intent?.id ?? '';
      out.push({ id: r.id, paymentIntent: pi, status: r.status ?? 'unknown', amount: r.amount });
    }
    if (!page.has_more || page.data.length === 0) return out;
    after = page.data[page.data.length - 1]!.id;
  }
}

async function readHold(baseUrl: string, h: { id: string; token: string }): Promise<HoldRecord> {
  const r = await api(baseUrl, 'GET', `/v1/holds/${h.id}`, { token: h.token });
  return { id: h.id, status: r.status === 200 ? (r.body.status as string) : `unreadable (${r.status})` };
}

/** A booking as the admin reads it, with the answer's status (404: the service never had it). */
async function fetchBooking(baseUrl: string, admin: string, id: string): Promise<{ status: number; record: BookingRecord | null }> {
  const path = `/v1/bookings/${encodeURIComponent(id)}`;
  let r = await api(baseUrl, 'GET', path, { token: admin });
  // A shed read (503) is asked again, so the audit never mistakes a busy moment for a missing booking.
  for (let i = 0; r.status >= 500 && i < 5; i++) {
    await new Promise((ok) => setTimeout(ok, 1000));
    r = await api(baseUrl, 'GET', path, { token: admin });
  }
  if (r.status !== 200) return { status: r.status, record: null };
  return { status: r.status, record: { id, showId: r.body.show_id, holdId: r.body.hold_id, status: r.body.status, seats: r.body.seats } };
}

async function readBooking(baseUrl: string, admin: string, id: string): Promise<BookingRecord | null> {
  return (await fetchBooking(baseUrl, admin, id)).record;
}

/**
 * Lets the service settle: waits (up to `ms`) until no hold the buyers made is
 * `paying` and no booking they were given is `pending`. Returns the holds' statuses.
 */
export async function settle(baseUrl: string, admin: string, holds: readonly { id: string; token: string }[], bookings: readonly string[], ms: number, log: (s: string) => void): Promise<number> {
  const started = Date.now();
  let open = [...holds];
  let pendingBookings = [...new Set(bookings)];
  for (;;) {
    const hs = await each(open, (h) => readHold(baseUrl, h));
    open = open.filter((_, i) => hs[i]!.status === 'paying');
    const bs = await each(pendingBookings, (id) => readBooking(baseUrl, admin, id));
    pendingBookings = pendingBookings.filter((_, i) => bs[i]?.status === 'pending');
    if ((open.length === 0 && pendingBookings.length === 0) || Date.now() - started > ms) break;
    log(`  settling: ${open.length} holds paying, ${pendingBookings.length} bookings pending (${Math.round((Date.now() - started) / 1000)} s)`);
    await new Promise((r) => setTimeout(r, 2000));
  }
  return Date.now() - started;
}

/** Everything the audit checks, read once. */
export async function readBooks(o: { baseUrl: string; paysimUrl: string; admin: string; showIds: readonly string[]; holds: readonly { id: string; token: string }[]; bookings: readonly string[] }): Promise<Books> {
  const stripe = bank(o.paysimUrl);
  const [cs, rs] = await Promise.all([charges(stripe), refunds(stripe)]);
  const ids = [...new Set([...cs.map((c) => c.bookingId).filter((x): x is string => x !== null), ...o.bookings])];
  const read = await each(ids, (id) => fetchBooking(o.baseUrl, o.admin, id));
  const bookings = read.map((r) => r.record).filter((b): b is BookingRecord => b !== null);
  // Only a definite "no such booking" makes a charge another client's; any other failure to read stays this service's problem.
  const unknownBookings = ids.filter((_, i) => read[i]!.status === 404 || read[i]!.status === 400);
  const maps: MapRecord[] = await each(o.showIds, async (showId) => {
    const [map, stats] = await Promise.all([api(o.baseUrl, 'GET', `/v1/shows/${showId}/seats`), api(o.baseUrl, 'GET', `/v1/admin/shows/${showId}/stats`, { token: o.admin })]);
    if (map.status !== 200 || stats.status !== 200) throw new Error(`audit: reading show ${showId}: map ${map.status}, stats ${stats.status}`);
    return {
      showId, booked: (map.body.seats as { seat: string; status: string }[]).filter((s) => s.status === 'booked').map((s) => s.seat),
      doubleSold: Number(stats.body.double_sold),
    };
  });
  const holds = await each(o.holds, (h) => readHold(o.baseUrl, h));
  return { charges: cs, refunds: rs, bookings, unknownBookings, maps, holds };
}
