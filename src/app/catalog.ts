// The catalog: venues, halls, events, shows. Admin writes, public reads.
import { notFound, validationFailed } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { checkSectionPlan, expandLayout, type Layout } from '../domain/layout.js';
import { checkShowSettings, SHOW_DEFAULTS } from '../domain/shows.js';
import * as catalog from '../db/catalog.js';
import * as shows from '../db/shows.js';
import * as placement from '../db/placement.js';
import { createShowSeatsFrom } from '../db/seatTransitions.js';
import type { ShowFilter, ShowSettings, ShowSearch } from '../db/shows.js';
import type { EventSearch } from '../db/catalog.js';
import { decodeCursor, PAGE_DEFAULT, toPage, type Position } from '../domain/paging.js';
import type { Context } from './context.js';

export async function createVenue(ctx: Context, input: { name: string; city: string; timezone?: string }) {
  const timezone = input.timezone ?? 'UTC';
  if (!(await catalog.isKnownTimezone(ctx.db, timezone))) {
    throw validationFailed('unknown timezone', [{ path: '/timezone', message: `"${timezone}" is not an IANA timezone` }]);
  }
  const venue = { id: newId('ven'), name: input.name, city: input.city, timezone };
  await catalog.insertVenue(ctx.db, venue);
  return venue;
}

/**
 * The catalog's bulk writes (a hall's seats, a show's seat rows, their statistics):
 * a stadium's 60,000 rows take seconds, longer than the request path's statement
 * bound (DB_STATEMENT_TIMEOUT_MS), so they run under the background's.
 */
const bulk = (ctx: Context) => ctx.db.as('catalog_writes');

/** Creates a hall with all its seats (up to 100,000) in one transaction. */
export async function createHall(ctx: Context, input: { venue_id: string; name: string; layout: Layout }) {
  const seats = expandLayout(input.layout);
  const sectionPlan = checkSectionPlan(input.layout);
  const hall = { id: newId('hall'), venue_id: input.venue_id, name: input.name, seat_count: seats.length };
  await bulk(ctx).transaction(async (tx) => {
    if (!(await catalog.venueExists(tx, input.venue_id))) {
      throw validationFailed('unknown venue', [{ path: '/venue_id', message: 'no venue with this id' }]);
    }
    await catalog.insertHall(tx, hall, seats, sectionPlan);
  });
  return hall;
}

/** A hall with the price tiers its seats use (a show needs a price for each). */
export async function getHall(ctx: Context, id: string) {
  const hall = await catalog.findHall(ctx.db, id);
  if (!hall) throw notFound('hall');
  return { ...hall, tiers: await catalog.hallTierCounts(ctx.db, id) };
}

export async function createEvent(ctx: Context, input: { title: string; kind?: string; duration_minutes?: number }) {
  const event = { id: newId('evt'), title: input.title, kind: input.kind ?? 'other', duration_minutes: input.duration_minutes ?? null };
  await catalog.insertEvent(ctx.db, event);
  return { id: event.id, title: event.title, kind: event.kind, duration_minutes: event.duration_minutes };
}

export type ShowInput = Omit<ShowSettings, 'sale_opens_at' | keyof typeof SHOW_DEFAULTS> &
  Partial<Pick<ShowSettings, keyof typeof SHOW_DEFAULTS>> & { sale_opens_at?: string; shard?: string };

/** Shows of this many seats or more have show_seats analyzed once created (smaller ones cost little to misplan). */
const ANALYZE_FROM_SEATS = 1000;

/**
 * Creates a show and one seat row per hall seat, and places it: on the shard named by
 * `shard`, else on the one whose shows not yet started expect the least demand. With
 * one database, one transaction; with shards, the catalog row and placement commit on
 * the control database, then the show's copy and seats on its shard (undone on the
 * control database when the shard refuses).
 */
export async function createShow(ctx: Context, input: ShowInput) {
  const { shard: pinned, ...rest } = input;
  const settings: ShowSettings = { ...SHOW_DEFAULTS, ...rest, sale_opens_at: rest.sale_opens_at ?? null };
  const id = newId('show');
  const shardNames = ctx.inventory.named().map((s) => s.name);
  if (pinned !== undefined && !shardNames.includes(pinned)) {
    throw validationFailed('unknown shard', [{ path: '/shard', message: `no shard named "${pinned}"; the shards are ${shardNames.join(', ')}` }]);
  }
  const seats = await bulk(ctx).transaction(async (tx) => {
    await checkReferences(tx, settings);
    const shard = pinned ?? await placement.leastLoadedShard(tx, shardNames);
    await placement.insertPlacement(tx, id, shard);
    if (ctx.inventory.single) return shows.insertShow(tx, id, settings);
    const saleOpensAt = await shows.insertShowRow(tx, id, settings);
    return { shard, saleOpensAt };
  });
  let made: number;
  if (typeof seats === 'number') made = seats;
  else {
    const onShard = (await ctx.inventory.ofShow(id)).as('catalog_writes');
    const hallSeats = await catalog.hallSeats(ctx.db, settings.hall_id);
    made = await onShard.transaction(async (tx) => {
      await shows.writeShowCopy(tx, id, { ...settings, sale_opens_at: seats.saleOpensAt });
      return createShowSeatsFrom(tx, id, hallSeats);
    }).catch(async (err: unknown) => {
      await bulk(ctx).transaction((tx) => placement.deletePlacedShow(tx, id));
      throw err;
    });
    ctx.log.info({ event: 'show.placed', show_id: id, shard: seats.shard, pinned: pinned !== undefined, seats: made }, 'show placed on its shard');
  }
  // The planner's picture of a large show, before its first hold (see analyzeShowSeats).
  // The show exists either way: statistics that could not be refreshed are a warning.
  if (made >= ANALYZE_FROM_SEATS) {
    // In a transaction: its statement bound is the bulk writes', not the request's.
    const onShard = (await ctx.inventory.ofShow(id)).as('catalog_writes');
    await onShard.transaction((tx) => shows.analyzeShowSeats(tx)).catch((err: unknown) => {
      ctx.log.warn({ event: 'show.seats_not_analyzed', show_id: id, err }, 'show_seats could not be analyzed after the show was created');
    });
  }
  return (await shows.findShow(ctx.db, id))!;
}

/**
 * Changes any settings of a show except its hall (its seats were made from that hall).
 * With shards, the show's copy on its shard is written before the catalog commits:
 * a shard that refuses leaves both as they were.
 */
export async function updateShow(ctx: Context, id: string, patch: Partial<ShowInput>) {
  await ctx.db.transaction(async (tx) => {
    const current = await shows.findShowSettings(tx, id);
    if (!current) throw notFound('show');
    if (patch.hall_id !== undefined && patch.hall_id !== current.hall_id) {
      throw validationFailed('a show cannot move to another hall', [{ path: '/hall_id', message: 'create a new show instead' }]);
    }
    const next: ShowSettings = { ...current, ...patch, sale_opens_at: patch.sale_opens_at ?? current.sale_opens_at };
    await checkReferences(tx, next);
    await shows.updateShow(tx, id, next);
    if (!ctx.inventory.single) await shows.writeShowCopy(await ctx.inventory.ofShow(id), id, { ...next, sale_opens_at: next.sale_opens_at! });
  });
  // This instance's copy of the show's rules (waiting room, sale window) is stale now; others' within 2 s.
  ctx.showRules.forget(id);
  return (await shows.findShow(ctx.db, id))!;
}

async function checkReferences(tx: Parameters<typeof catalog.eventExists>[0], s: ShowSettings): Promise<void> {
  if (!(await catalog.eventExists(tx, s.event_id))) {
    throw validationFailed('unknown event', [{ path: '/event_id', message: 'no event with this id' }]);
  }
  if (!(await catalog.findHall(tx, s.hall_id))) {
    throw validationFailed('unknown hall', [{ path: '/hall_id', message: 'no hall with this id' }]);
  }
  checkShowSettings(s, await catalog.hallTiers(tx, s.hall_id));
}

export async function getShow(ctx: Context, id: string) {
  const show = await shows.findShow(ctx.db, id);
  if (!show) throw notFound('show');
  return show;
}

/**
 * A search forgives a typo in q only when nothing matches q as typed: results come by
 * date, not by closeness, so a near word would sit among the exact ones ("night"
 * would list Northern Lights beside Night of the Long Knives).
 */
async function asTypedElseWithTypos<T>(q: string | undefined, search: (typos: boolean) => Promise<T[]>): Promise<T[]> {
  const asTyped = await search(false);
  return asTyped.length > 0 || q === undefined ? asTyped : search(true);
}

/** Shows that match the filters, soonest first. */
export async function listShows(ctx: Context, q: ShowSearch) {
  return { shows: await asTypedElseWithTypos(q.q, (typos) => shows.searchShows(ctx.db, q, typos, 500)) };
}

/** Events with a show still to come that matches the filters, each with its next such show. */
export async function listUpcomingEvents(ctx: Context, q: EventSearch) {
  return { events: await asTypedElseWithTypos(q.q, (typos) => catalog.searchUpcomingEvents(ctx.db, q, typos, 500)) };
}

export interface PageRequest {
  limit?: number;
  cursor?: string;
}

/** One page: a row beyond the limit is fetched only to know whether another page follows. */
async function onePage<T>(p: PageRequest, fetch: (after: Position | null, rows: number) => Promise<(T & { position: Position })[]>) {
  const limit = p.limit ?? PAGE_DEFAULT;
  return toPage(await fetch(decodeCursor(p.cursor), limit + 1), limit);
}

// Operators' lists: everything created, oldest first, a page at a time.

export async function listVenues(ctx: Context, p: PageRequest) {
  const { items, next_cursor } = await onePage(p, (after, rows) => catalog.listVenues(ctx.db, after, rows));
  return { venues: items, next_cursor };
}

export async function listHalls(ctx: Context, filter: { venue_id?: string }, p: PageRequest) {
  const { items, next_cursor } = await onePage(p, (after, rows) => catalog.listHalls(ctx.db, filter, after, rows));
  return { halls: items, next_cursor };
}

export async function listEvents(ctx: Context, p: PageRequest) {
  const { items, next_cursor } = await onePage(p, (after, rows) => catalog.listEvents(ctx.db, after, rows));
  return { events: items, next_cursor };
}

export async function listCreatedShows(ctx: Context, filter: ShowFilter, p: PageRequest) {
  const { items, next_cursor } = await onePage(p, (after, rows) => shows.listShowsCreated(ctx.db, filter, after, rows));
  return { shows: items, next_cursor };
}
