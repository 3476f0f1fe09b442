// The money invariants, checked against both the database and the payment
// simulator's books (read through the Stripe SDK).
import type pg from 'pg';
import Stripe from 'stripe';
import { sleep, tally, type Answer, type BookingRecord, type BuyerHttp } from './client.js';

export function stripeClient(port: number): Stripe {
  // GET list calls may meet injected 5xx (chaos): the SDK retries those (stripe-should-retry).
  return new Stripe('sk_test_sim', { host: '127.0.0.1', port, protocol: 'http', maxNetworkRetries: 10, timeout: 30_000, telemetry: false });
}

interface DbBooking {
  id: string;
  hold_id: string;
  user_id: string;
  show_id: string;
  amount: string;
  status: string;
  payment_method: string;
  seats: string[];
  hold_status: string;
  attempt_id: string | null;
  attempt_status: string | null;
  provider_payment_id: string | null;
  attempts: string;
  refund_id: string | null;
  refund_status: string | null;
  refund_amount: string | null;
  refund_pi: string | null;
}

export interface InvariantReport {
  counts: Record<string, unknown>;
  violations: string[];
}

/**
 * Every money and seat invariant the tests assert, each violation as a line of
 * evidence. `records` are the clients' own views (what the service told them).
 */
export async function checkInvariants(db: pg.Pool, stripe: Stripe, records: BookingRecord[]): Promise<InvariantReport> {
  const violations: string[] = [];
  const v = (s: string) => violations.push(s);

  const pis = await stripe.paymentIntents.list({ limit: 100 }).autoPagingToArray({ limit: 10_000 });
  const refunds = await stripe.refunds.list({ limit: 100 }).autoPagingToArray({ limit: 10_000 });
  if (pis.length >= 10_000 || refunds.length >= 10_000) v('more than 10,000 objects in the simulator: the listing is truncated');

  const bookings = (await db.query<DbBooking>(`
    select b.id, b.hold_id, b.user_id, b.show_id, b.amount, b.status, b.payment_method, h.seats, h.status as hold_status,
           a.id as attempt_id, a.status as attempt_status, a.provider_payment_id,
           (select count(*) from payment_attempts x where x.booking_id = b.id) as attempts,
           r.id as refund_id, r.status as refund_status, r.amount as refund_amount, r.payment_intent as refund_pi
      from bookings b
      join holds h on h.id = b.hold_id
      left join payment_attempts a on a.booking_id = b.id
      left join refunds r on r.booking_id = b.id`)).rows;
  const byId = new Map(bookings.map((b) => [b.id, b]));

  const refundsByPi = new Map<string, Stripe.Refund[]>();
  for (const r of refunds) {
    const pi = typeof r.payment_intent === 'string' ? r.payment_intent : r.payment_intent?.id ?? '';
    refundsByPi.set(pi, [...(refundsByPi.get(pi) ?? []), r]);
  }
  const piById = new Map(pis.map((p) => [p.id, p]));

  // --- the simulator's books: every PaymentIntent is ours and ends charged-and-booked or refunded
  const succeededByBooking = new Map<string, string[]>();
  const succeededByHold = new Map<string, string[]>();
  const pisByAttempt = new Map<string, string[]>();
  for (const pi of pis) {
    const m = pi.metadata ?? {};
    const bookingId = m.booking_id;
    const attemptId = m.attempt_id;
    if (!bookingId || !attemptId || !m.hold_id) { v(`PI ${pi.id} lacks booking_id/hold_id/attempt_id metadata: ${JSON.stringify(m)}`); continue; }
    pisByAttempt.set(attemptId, [...(pisByAttempt.get(attemptId) ?? []), pi.id]);
    const b = byId.get(bookingId);
    if (!b) { v(`PI ${pi.id} (${pi.status}) names booking ${bookingId}, which the database does not have`); continue; }
    if (b.attempt_id !== attemptId) v(`PI ${pi.id} names attempt ${attemptId}, but booking ${bookingId}'s attempt is ${b.attempt_id}`);
    if (b.hold_id !== m.hold_id) v(`PI ${pi.id} names hold ${m.hold_id}, but booking ${bookingId} is for hold ${b.hold_id}`);
    if (pi.amount !== Number(b.amount)) v(`PI ${pi.id} charged ${pi.amount}, booking ${bookingId} costs ${b.amount}`);
    const refs = refundsByPi.get(pi.id) ?? [];
    const refunded = refs.reduce((s, r) => s + r.amount, 0);
    if (pi.status === 'succeeded') {
      succeededByBooking.set(bookingId, [...(succeededByBooking.get(bookingId) ?? []), pi.id]);
      succeededByHold.set(b.hold_id, [...(succeededByHold.get(b.hold_id) ?? []), pi.id]);
      const bookedByThis = b.status === 'confirmed' && b.provider_payment_id === pi.id;
      if (refunded === 0 && !bookedByThis) {
        v(`CHARGED WITHOUT BOOKING OR REFUND: PI ${pi.id} succeeded (${pi.amount}) for booking ${bookingId} (status ${b.status}, attempt ${b.attempt_status}, provider id ${b.provider_payment_id}, pm ${b.payment_method}) and nothing was refunded`);
      }
      if (refunded > 0 && (refunded !== pi.amount || refs.length !== 1)) {
        v(`PI ${pi.id}: ${refs.length} refund(s) totalling ${refunded} of ${pi.amount} (want exactly one full refund)`);
      }
      if (refunded > 0 && !['refunded', 'cancelled'].includes(b.status)) v(`PI ${pi.id} was refunded but booking ${bookingId} is ${b.status}`);
    } else {
      if (refs.length > 0) v(`PI ${pi.id} has status ${pi.status} but ${refs.length} refund(s)`);
      if (pi.status !== 'requires_payment_method') v(`PI ${pi.id} is still ${pi.status} after settling`);
      if (b.provider_payment_id === pi.id && b.status === 'confirmed') v(`booking ${bookingId} is confirmed by PI ${pi.id}, which has status ${pi.status}`);
    }
  }
  for (const [attempt, ids] of pisByAttempt) if (ids.length > 1) v(`attempt ${attempt} has ${ids.length} PaymentIntents (${ids.join(', ')}): charged more than once`);
  for (const [booking, ids] of succeededByBooking) if (ids.length > 1) v(`BOOKING CHARGED TWICE: ${booking} has ${ids.length} succeeded PIs ${ids.join(', ')}`);
  for (const [hold, ids] of succeededByHold) if (ids.length > 1) v(`HOLD CHARGED TWICE: hold ${hold} has ${ids.length} succeeded PIs ${ids.join(', ')}`);
  for (const r of refunds) {
    const piId = typeof r.payment_intent === 'string' ? r.payment_intent : r.payment_intent?.id ?? '';
    const pi = piById.get(piId);
    if (!pi) { v(`refund ${r.id} is for unknown PI ${piId}`); continue; }
    if (r.metadata?.booking_id !== pi.metadata?.booking_id) v(`refund ${r.id} names booking ${r.metadata?.booking_id}, its PI ${piId} booking ${pi.metadata?.booking_id}`);
  }

  // --- the database: every booking's status agrees with the books
  for (const b of bookings) {
    if (Number(b.attempts) !== 1) v(`booking ${b.id} has ${b.attempts} payment attempts`);
    const pi = b.provider_payment_id ? piById.get(b.provider_payment_id) : undefined;
    switch (b.status) {
      case 'confirmed':
        if (b.attempt_status !== 'succeeded' || !pi || pi.status !== 'succeeded') v(`confirmed booking ${b.id}: attempt ${b.attempt_status}, PI ${b.provider_payment_id} ${pi?.status ?? 'missing'}`);
        if (b.refund_id) v(`confirmed booking ${b.id} has a refund ${b.refund_id} (${b.refund_status})`);
        if (b.hold_status !== 'confirmed') v(`confirmed booking ${b.id}'s hold ${b.hold_id} is ${b.hold_status}`);
        break;
      case 'refunded':
        if (!b.refund_id || b.refund_status !== 'succeeded') v(`refunded booking ${b.id}: refund ${b.refund_id} ${b.refund_status}`);
        if (b.refund_pi && !(refundsByPi.get(b.refund_pi) ?? []).some((r) => r.metadata?.refund_id === b.refund_id)) v(`refunded booking ${b.id}: the simulator has no refund ${b.refund_id} on ${b.refund_pi}`);
        break;
      case 'cancelled':
        if (b.attempt_status !== 'succeeded' || !pi || pi.status !== 'succeeded') v(`cancelled booking ${b.id}: attempt ${b.attempt_status}, PI ${b.provider_payment_id} ${pi?.status ?? 'missing'}`);
        if (!b.refund_id || b.refund_status !== 'succeeded' || Number(b.refund_amount) !== Number(b.amount)) v(`cancelled booking ${b.id}: refund ${b.refund_id} ${b.refund_status} ${b.refund_amount} of ${b.amount}`);
        if (b.refund_pi !== b.provider_payment_id) v(`cancelled booking ${b.id}: refund is for ${b.refund_pi}, the charge was ${b.provider_payment_id}`);
        if (b.refund_pi && !(refundsByPi.get(b.refund_pi) ?? []).some((r) => r.metadata?.refund_id === b.refund_id)) v(`cancelled booking ${b.id}: the simulator has no refund ${b.refund_id} on ${b.refund_pi}`);
        break;
      case 'failed':
        if (b.attempt_status !== 'failed') v(`failed booking ${b.id}: attempt ${b.attempt_status}`);
        if (b.refund_id) v(`failed booking ${b.id} has a refund ${b.refund_id}`);
        break;
      case 'pending':
        v(`booking ${b.id} is still pending (attempt ${b.attempt_status})`);
        break;
      default:
        v(`booking ${b.id} has status ${b.status}, which this test never asks for`);
    }
    if (b.attempt_status === 'succeeded' && !['confirmed', 'refunded', 'cancelled'].includes(b.status)) v(`booking ${b.id} is ${b.status} though its attempt succeeded (PI ${b.provider_payment_id})`);
    if (b.attempt_status === 'failed' && b.provider_payment_id && piById.get(b.provider_payment_id)?.status === 'succeeded') v(`attempt of ${b.id} recorded as failed, but PI ${b.provider_payment_id} succeeded`);
  }
  const confirmedPerHold = new Map<string, number>();
  for (const b of bookings) if (b.status === 'confirmed') confirmedPerHold.set(b.hold_id, (confirmedPerHold.get(b.hold_id) ?? 0) + 1);
  for (const [hold, n] of confirmedPerHold) if (n > 1) v(`hold ${hold} has ${n} confirmed bookings`);

  // --- seats: sold once, booked exactly where a confirmed booking says so, nothing stuck paying
  const doubleSold = await db.query(`select show_id, seat_id, count(*) as n from booking_seats where sold group by 1, 2 having count(*) > 1`);
  for (const r of doubleSold.rows) v(`SEAT SOLD TWICE: ${r.show_id}/${r.seat_id} in ${r.n} sold booking_seats`);
  const soldRows = (await db.query<{ booking_id: string; show_id: string; seat_id: string }>(`select booking_id, show_id, seat_id from booking_seats where sold`)).rows;
  const bookedRows = (await db.query<{ show_id: string; seat_id: string; booking_id: string | null; hold_id: string | null }>(`select show_id, seat_id, booking_id, hold_id from show_seats where status = 'booked'`)).rows;
  const want = new Set<string>();
  for (const b of bookings) if (b.status === 'confirmed') for (const s of b.seats) want.add(`${b.show_id}/${s}/${b.id}`);
  const sold = new Set(soldRows.map((r) => `${r.show_id}/${r.seat_id}/${r.booking_id}`));
  const booked = new Set(bookedRows.map((r) => `${r.show_id}/${r.seat_id}/${r.booking_id}`));
  for (const x of want) {
    if (!sold.has(x)) v(`confirmed seat ${x} has no sold booking_seats row`);
    if (!booked.has(x)) v(`confirmed seat ${x} is not booked in show_seats`);
  }
  for (const x of sold) if (!want.has(x)) v(`booking_seats says ${x} is sold, but that booking is not confirmed for it`);
  for (const x of booked) if (!want.has(x)) v(`show_seats says ${x} is booked, but no confirmed booking has it`);
  const strandedSeats = await db.query(`
    select s.show_id, s.seat_id, s.hold_id from show_seats s
     where s.status = 'paying'
       and not exists (select 1 from payment_attempts a where a.hold_id = s.hold_id and a.status in ('created', 'unknown'))`);
  for (const r of strandedSeats.rows) v(`seat ${r.show_id}/${r.seat_id} is paying for hold ${r.hold_id} with no open payment attempt`);
  const strandedHolds = await db.query(`
    select h.id from holds h
     where h.status = 'paying'
       and not exists (select 1 from payment_attempts a where a.hold_id = h.id and a.status in ('created', 'unknown'))`);
  for (const r of strandedHolds.rows) v(`hold ${r.id} is paying with no open payment attempt`);

  // --- tickets: one valid ticket per seat of every confirmed booking, none elsewhere
  const tickets = (await db.query<{ booking_id: string; seat_id: string; status: string; show_id: string }>(`select booking_id, seat_id, status, show_id from tickets`)).rows;
  const validByBooking = new Map<string, string[]>();
  for (const t of tickets) if (t.status === 'valid') validByBooking.set(t.booking_id, [...(validByBooking.get(t.booking_id) ?? []), t.seat_id]);
  let ticketsValid = 0;
  for (const b of bookings) {
    const got = (validByBooking.get(b.id) ?? []).sort();
    ticketsValid += got.length;
    if (b.status === 'confirmed') {
      if (JSON.stringify(got) !== JSON.stringify([...b.seats].sort())) v(`confirmed booking ${b.id} has valid tickets for [${got.join(',')}], seats [${b.seats.join(',')}]`);
    } else if (got.length > 0) v(`${b.status} booking ${b.id} has ${got.length} valid ticket(s)`);
  }
  const validTwice = await db.query(`select show_id, seat_id, count(*) as n from tickets where status = 'valid' group by 1, 2 having count(*) > 1`);
  for (const r of validTwice.rows) v(`two valid tickets for ${r.show_id}/${r.seat_id}`);

  // --- what the clients were told is what happened
  let unresolved = 0;
  for (const rec of records) {
    if (rec.bookingIdsSeen.size > 1) v(`key ${rec.key} was answered with ${rec.bookingIdsSeen.size} different bookings: ${[...rec.bookingIdsSeen].join(', ')}`);
    const seen = rec.statusesSeen.filter((s) => s !== 'pending');
    if (new Set(seen).size > 1) v(`key ${rec.key} was answered with different outcomes: ${rec.statusesSeen.join(' -> ')}`);
    if (rec.final.startsWith('unexpected_')) v(`key ${rec.key}: unexpected answer ${rec.final}`);
    if (!rec.bookingId) continue;
    const b = byId.get(rec.bookingId);
    if (!b) { v(`key ${rec.key} was answered with booking ${rec.bookingId}, which the database does not have`); continue; }
    if (b.hold_id !== rec.holdId) v(`key ${rec.key}: booking ${b.id} is for hold ${b.hold_id}, asked for ${rec.holdId}`);
    if (rec.final === 'gave_up') { unresolved++; continue; }
    if (rec.cancelled) {
      if (b.status !== 'cancelled') v(`key ${rec.key}: the client's cancellation of ${b.id} was answered, but the booking is ${b.status}`);
      for (const amount of rec.cancelRefundAmounts) if (amount !== Number(b.amount)) v(`cancel of ${b.id} answered refund ${amount} of ${b.amount}`);
      continue;
    }
    if (rec.final !== b.status) v(`ANSWER MISMATCH: key ${rec.key} (${rec.paymentMethod}) was told "${rec.final}" (${rec.statusesSeen.join(' -> ')}), booking ${b.id} is ${b.status} (attempt ${b.attempt_status}, PI ${b.provider_payment_id})`);
  }

  const succeeded = pis.filter((p) => p.status === 'succeeded');
  const counts = {
    bookings: bookings.length,
    bookings_by_status: tally(bookings.map((b) => b.status)),
    payment_intents: pis.length,
    payment_intents_by_status: tally(pis.map((p) => p.status)),
    amount_charged: succeeded.reduce((s, p) => s + p.amount, 0),
    refunds: refunds.length,
    amount_refunded: refunds.reduce((s, r) => s + r.amount, 0),
    seats_booked: bookedRows.length,
    tickets_valid: ticketsValid,
    client_flows_unresolved: unresolved,
    cancelled_by_clients: records.filter((r) => r.cancelled).length,
    cancel_requests: records.reduce((s, r) => s + r.cancelRequests, 0),
  };
  return { counts, violations };
}

/** The slowest client flows with the service's own record of their payment attempt, for the log. */
export async function slowest(db: pg.Pool, records: BookingRecord[], n: number, filter: (r: BookingRecord) => boolean = () => true): Promise<string[]> {
  const top = records.filter((r) => filter(r) && r.definitiveMs !== null && r.bookingId).sort((a, b) => b.definitiveMs! - a.definitiveMs!).slice(0, n);
  const out: string[] = [];
  for (const r of top) {
    const a = (await db.query(`select a.status, a.checks, a.last_error, extract(epoch from a.resolved_at - a.created_at)::float8 as resolve_s
                                 from payment_attempts a where a.booking_id = $1`, [r.bookingId])).rows[0];
    out.push(`${r.key} ${r.paymentMethod}: ${r.definitiveMs} ms to "${r.final}" (first ${r.firstStatus} after ${r.firstAnswerMs} ms, ${r.polls} polls, ${r.connErrors} conn errors, ${r.inFlight409} in-flight 409s); attempt ${a?.status} after ${a?.checks} reconciler checks, resolved ${Number(a?.resolve_s).toFixed(1)} s after creation, last error: ${a?.last_error ?? '-'}`);
  }
  return out;
}

/** Repeats every key once with its body: each must replay the same booking and charge nothing new. */
export async function replayEveryKey(http: BuyerHttp, tokens: string[], records: BookingRecord[], concurrency = 32): Promise<{ replays: number; problems: string[] }> {
  const problems: string[] = [];
  let i = 0;
  let replays = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (i < records.length) {
      const rec = records[i++]!;
      if (!rec.bookingId) continue;
      let r: Answer | null = null;
      for (let t = 0; t < 5 && !r; t++) {
        try { r = await http.send('POST', '/v1/bookings', { body: rec.body, token: tokens[rec.buyer]!, headers: { 'idempotency-key': rec.key } }); } catch { await sleep(200); }
      }
      replays++;
      if (!r) { problems.push(`replay of ${rec.key}: no answer`); continue; }
      if (r.status !== 201 || r.body.booking_id !== rec.bookingId) {
        problems.push(`REPLAY MISMATCH: key ${rec.key} first named booking ${rec.bookingId}, a repeat answers ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      }
    }
  }));
  return { replays, problems };
}
