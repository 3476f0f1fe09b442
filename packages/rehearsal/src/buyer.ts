// One virtual buyer: arrives, queues (waiting-room shows) and waits by the page's
// rules, reads the map (sections first in a stadium), chooses seats with a bias to
// the best, holds, pays, sometimes walks away, and on a lost race chooses again —
// a bounded number of times, and not at all once the map shows no seat available.
// A share of buyers asks for best available instead (the service chooses adjacent
// seats): no map; on NOT_ENOUGH_SEATS it waits for lapsing holds and asks twice more.
// Finding the show sold out while seats are still held, a share of buyers join its
// waiting list and pay the offer when one comes.
import { seededRandom, type Random } from '@boxoffice/paysim';
import type { QueueEdge } from './edge.js';
import type { EdgeCache } from './edgeCache.js';
import type { BuyerHttp } from './http.js';
import type { Options } from './options.js';
import { pay, sleep, type PaymentEnd } from './payment.js';
import type { Recorder } from './recorder.js';
import { chooseSeats, chooseSection, rankSeats, type MapSeat, type SectionSummary } from './seatChoice.js';

export interface BuyerAccount { userId: string; token: string }

export interface Market {
  http: BuyerHttp;
  rec: Recorder;
  opts: Readonly<Options>;
  showIds: readonly string[];
  /** The waiting room's shared status (waiting-room shows only). */
  edge: QueueEdge | null;
  /** The public map reads through the edge (shared, at most a second old), or null: every buyer reads the origin. */
  maps: EdgeCache | null;
  stopAt: number;
  /** Every hold and booking the buyers made, with the owner's token, for the audit. */
  holds: { id: string; token: string }[];
  bookings: { id: string; token: string }[];
}

const after = (m: Market) => performance.now() >= m.stopAt;
const wait = (m: Market, ms: number) => sleep(Math.max(0, Math.min(ms, m.stopAt - performance.now())));

/** Joins the queue and waits to be admitted; the admission token, or null (sold out, the run ended, refused). */
async function queueUp(m: Market, b: BuyerAccount, showId: string, fate: { position: number; waitMs: number | null }): Promise<string | null> {
  const base = `/v1/shows/${showId}/queue`;
  let token: string | null = null;
  let position = 0;
  while (!token) {
    if (after(m)) return null;
    const j = await m.http.send('queue join', 'POST', base, { token: b.token });
    if (j?.status === 201 && j.body.position !== null) { token = j.body.queue_token; position = j.body.position; break; }
    if (j && j.status !== 201 && j.status !== 503 && j.status !== 429) return null;
    await wait(m, (j?.retryAfter ?? 1) * 1000);
  }
  const joinedAt = performance.now();
  fate.position = position;
  m.rec.waitingNow++;
  try {
    for (;;) {
      const turn = await m.edge!.waitTurn(position);
      if (turn !== 'turn' || after(m)) return null;
      const a = await m.http.send('admit', 'POST', `${base}/admit`, { token: b.token, body: { queue_token: token } });
      if (a?.status === 200) {
        fate.waitMs = performance.now() - joinedAt;
        m.rec.count('admitted');
        return a.body.admission_token as string;
      }
      if (a?.status === 403 && a.body?.sold_out) return null;
      if (a && a.status !== 403 && a.status !== 503 && a.status !== 429) return null;
      await wait(m, (a?.body?.retry_after_seconds ?? a?.retryAfter ?? 1) * 1000);
      if (after(m)) return null;
    }
  } finally {
    m.rec.waitingNow--;
  }
}

const ranking = new WeakMap<object, MapSeat[]>();

/** A public read, through the edge when there is one. */
function publicRead(m: Market, step: 'sections' | 'map', path: string) {
  return m.maps ? m.maps.get(step, path) : m.http.send(step, 'GET', path);
}

/** The available seats, best first, from the map (a stadium: its sections, then one section). Null on an error. */
async function readMap(m: Market, showId: string, want: number, random: Random): Promise<{ ranked: MapSeat[]; anyHeld: boolean } | null> {
  let query = '';
  if (m.opts.sections) {
    const s = await publicRead(m, 'sections', `/v1/shows/${showId}/sections`);
    if (s?.status !== 200) return null;
    const sections = s.body.sections as (SectionSummary & { held: number })[];
    const section = chooseSection(sections, want, random);
    if (section === null) return { ranked: [], anyHeld: sections.some((x) => x.held > 0) };
    query = `?section=${encodeURIComponent(section)}`;
  }
  const r = await publicRead(m, 'map', `/v1/shows/${showId}/seats${query}`);
  if (r?.status !== 200) return null;
  const seats = r.body.seats as MapSeat[];
  // A shared answer is ranked once; each buyer filters its own copy.
  let ranked = ranking.get(r.body);
  if (!ranked) ranking.set(r.body, (ranked = rankSeats(seats)));
  return { ranked: [...ranked], anyHeld: seats.some((x) => x.status === 'held') };
}

/**
 * Pays for a hold of the buyer's (one it made, or an offer), its seats counted as held
 * while paying; a payment given up on releases the hold. How the payment ended.
 */
async function payHold(
  m: Market, b: BuyerAccount, holdId: string, seats: number, gate: Record<string, string>, random: Random, bookings: string[], keyPrefix: string,
): Promise<PaymentEnd> {
  m.rec.heldNow += seats;
  let end: PaymentEnd;
  try {
    end = await pay({ http: m.http, rec: m.rec, mix: m.opts, random, stopAt: m.stopAt, bookings, keyPrefix }, b.token, holdId, seats, gate);
  } finally {
    m.rec.heldNow -= seats;
  }
  if (end === 'gave_up') await m.http.send('release', 'DELETE', `/v1/holds/${holdId}`, { token: b.token });
  return end;
}

/**
 * On a sold-out show's waiting list for `want` seats: joins, then looks at the entry
 * every 5–10 s for 2–5 minutes at most, or until the waiting room says every seat is
 * booked (then leaves). An offer, a hold the service made for the buyer, is paid like
 * any hold but without the admission token (an offer needs none), or walked away from
 * as often as any hold. 'seats' when the join says seats are free (buy them instead).
 */
async function waitForOffer(m: Market, b: BuyerAccount, index: number, showId: string, want: number, random: Random, bookings: string[]): Promise<'booked' | 'not' | 'seats'> {
  const base = `/v1/shows/${showId}/waitlist`;
  const j = await m.http.send('waitlist join', 'POST', base, { token: b.token, body: { count: want } });
  if (j?.status === 409 && j.body?.code === 'SEATS_AVAILABLE') return 'seats';
  if (j?.status !== 201 && j?.status !== 200) return 'not';
  m.rec.count('waitlisted');
  const until = Math.min(m.stopAt, performance.now() + (120 + random() * 180) * 1000);
  while (performance.now() < until) {
    await wait(m, 5000 + random() * 5000);
    // Every seat booked, as the waiting room's page says: nothing will be offered.
    if (m.edge?.status?.sold_out) break;
    const e = await m.http.send('waitlist status', 'GET', `${base}/me`, { token: b.token });
    if (!e || e.status === 503 || e.status === 429) continue;
    if (e.status !== 200 || (e.body.status !== 'waiting' && e.body.status !== 'offered')) return 'not';
    if (e.body.status === 'waiting') continue;
    const holdId = e.body.hold_id as string;
    const seats = e.body.count as number;
    m.rec.count('offers');
    m.holds.push({ id: holdId, token: b.token });
    if (random() < m.opts.abandonRate) {
      m.rec.count('abandoned');
      m.rec.lapses(Date.parse(e.body.expires_at as string) - Date.now());
      return 'not';
    }
    const end = await payHold(m, b, holdId, seats, {}, random, bookings, `onsale-${m.opts.seed}-${index}-offer`);
    return end === 'confirmed' ? 'booked' : 'not';
  }
  // Out of patience (or the run ended): off the list; an offer made meanwhile moves on.
  await m.http.send('waitlist leave', 'DELETE', `${base}/me`, { token: b.token });
  return 'not';
}

/** Holds and pays for seats of one show; true once a booking is confirmed. */
async function buySeats(m: Market, b: BuyerAccount, index: number, showId: string, admission: string | null, random: Random): Promise<boolean> {
  const gate: Record<string, string> = admission ? { 'admission-token': admission } : {};
  const [lo, hi] = m.opts.seatsPerBuyer;
  const want = lo + Math.floor(random() * (hi - lo + 1));
  const best = random() < m.opts.bestAvailableRate;
  const bookings: string[] = [];
  let view: { ranked: MapSeat[]; anyHeld: boolean } | null = null;
  let conflicts = 0;
  let emptyReads = 0;
  let failedReads = 0;
  let shed = 0;
  let notEnough = 0;
  let listTried = false;
  /** No seats to be had now: the buyer leaves (false), or waits on the list (its outcome), or null: seats are free after all. */
  const soldOut = async (): Promise<boolean | null> => {
    m.rec.soldOutSeenAt ??= performance.now();
    if (listTried || random() >= m.opts.waitlistRate) return false;
    listTried = true;
    const r = await waitForOffer(m, b, index, showId, want, random, bookings);
    return r === 'seats' ? null : r === 'booked';
  };
  try {
    for (let attempt = 0; attempt < m.opts.maxAttempts && !after(m);) {
      let seats: string[];
      let h;
      if (best) {
        attempt++;
        h = await m.http.send('hold', 'POST', `/v1/shows/${showId}/holds`, { token: b.token, body: { best_available: { count: want } }, headers: gate });
        m.rec.count('holdAttempts');
        m.rec.count('bestAttempts');
        if (h?.status === 409 && h.body?.code === 'NOT_ENOUGH_SEATS') {
          m.rec.count('conflicts');
          m.rec.count('bestConflicts');
          // No run of this length left: perhaps after some holds lapse; asked three times at most.
          if (++notEnough >= 3) {
            const listed = await soldOut();
            if (listed !== null) return listed;
            notEnough = 0;
            continue;
          }
          await wait(m, 3000 + random() * 3000);
          continue;
        }
        seats = h?.status === 201 ? h.body.seats as string[] : [];
      } else {
        if (!view || conflicts >= 2) {
          view = await readMap(m, showId, want, random);
          conflicts = 0;
          if (!view) {
            // No map: try again later, backing off; a buyer who cannot see the map for long leaves.
            if (++failedReads > m.opts.maxAttempts) return false;
            await wait(m, 1000 * 2 ** Math.min(failedReads, 4) * (0.5 + random()));
            continue;
          }
      }
      if (view.ranked.length === 0) {
        // Nothing available: sold out, unless someone's hold may still lapse; look twice more at most.
        if (!view.anyHeld) { m.rec.soldOutSeenAt ??= performance.now(); return false; }
        if (++emptyReads > 2) {
          const listed = await soldOut();
          if (listed !== null) return listed;
          emptyReads = 0;
        }
        view = null;
        await wait(m, 3000 + random() * 3000);
        continue;
      }
      seats = chooseSeats(view.ranked, want, random);
      attempt++;
      h = await m.http.send('hold', 'POST', `/v1/shows/${showId}/holds`, { token: b.token, body: { seats }, headers: gate });
      // Counted when answered, in the same second as its 409 (the 409 rate's denominator).
      m.rec.count('holdAttempts');
      }
      if (!h) continue;
      if (h.status === 503 || h.status === 429) {
        // Shed: not a lost race; ask again when told, a bounded number of times.
        if (++shed > 4 * m.opts.maxAttempts) return false;
        attempt--;
        await wait(m, h.retryAfter * 1000 * (1 + random()));
        continue;
      }
      if (h.status === 409 && h.body?.code === 'SEAT_UNAVAILABLE' && view) {
        m.rec.count('conflicts');
        const taken = new Set<string>((h.body.taken as string[] | undefined) ?? seats);
        view.ranked = view.ranked.filter((s) => !taken.has(s.seat));
        conflicts++;
        continue;
      }
      if (h.status !== 201) return false;
      m.rec.count('holds');
      const holdId = h.body.hold_id as string;
      m.holds.push({ id: holdId, token: b.token });
      if (random() < m.opts.abandonRate) {
        m.rec.count('abandoned');
        // Half close the tab (the hold lapses), half press "release".
        if (random() < 0.5) await m.http.send('release', 'DELETE', `/v1/holds/${holdId}`, { token: b.token });
        else m.rec.lapses(Date.parse(h.body.expires_at as string) - Date.now());
        return false;
      }
      const end = await payHold(m, b, holdId, seats.length, gate, random, bookings, `onsale-${m.opts.seed}-${index}-${attempt}`);
      if (end === 'confirmed') return true;
      if (end === 'lost') { view = null; continue; }
      return false;
    }
    return false;
  } finally {
    for (const id of bookings) m.bookings.push({ id, token: b.token });
  }
}

/** Weekday traffic: the listings and a few shows' pages and maps; the show to buy for, or null (only browsing). */
async function browse(m: Market, random: Random): Promise<string | null> {
  await m.http.send('browse', 'GET', '/v1/shows');
  const looks = 1 + Math.floor(random() * 3);
  let chosen = m.showIds[0]!;
  for (let i = 0; i < looks; i++) {
    chosen = m.showIds[Math.floor(random() * m.showIds.length)]!;
    await m.http.send('browse', 'GET', `/v1/shows/${chosen}`);
    await m.http.send('map', 'GET', `/v1/shows/${chosen}/seats`);
    await sleep(500 + random() * 2000);
  }
  return random() < m.opts.browseOnlyRate ? null : chosen;
}

/**
 * Starts each buyer at its arrival (ms after now), in arrival order, and resolves
 * when all are done. Buyers not yet arrived are an index in a sorted list, not a
 * sleeping task each: 100,000 pending tasks and their timers, made at once, held
 * the buyers' loop for most of a second at the sale's start and stayed on the heap.
 */
export async function dispatchArrivals(arrivals: readonly number[], start: (index: number, rank: number) => Promise<void>): Promise<void> {
  const order = [...arrivals.keys()].sort((a, b) => arrivals[a]! - arrivals[b]!);
  const started: Promise<void>[] = [];
  const t0 = performance.now();
  for (let next = 0; next < order.length;) {
    const now = performance.now() - t0;
    while (next < order.length && arrivals[order[next]!]! <= now) {
      started.push(start(order[next]!, next + 1));
      next++;
    }
    if (next < order.length) await sleep(Math.max(1, arrivals[order[next]!]! - (performance.now() - t0)));
  }
  await Promise.all(started);
}

/** Buyer `index` of the run, started when it arrives; `rank` is its place in arrival order. */
export async function runBuyer(m: Market, b: BuyerAccount, index: number, rank: number): Promise<void> {
  const random = seededRandom((m.opts.seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0);
  m.rec.arrived++;
  const fate = { position: rank, gotSeat: false, waitMs: null as number | null };
  try {
    if (after(m)) return;
    const showId = m.opts.shows > 1 ? await browse(m, random) : m.showIds[0]!;
    if (showId === null) return;
    let admission: string | null = null;
    if (m.edge) {
      admission = await queueUp(m, b, showId, fate);
      if (!admission) return;
    }
    fate.gotSeat = await buySeats(m, b, index, showId, admission, random);
  } finally {
    m.rec.fates.push(fate);
    m.rec.done++;
  }
}
