// The waiting room's use-cases: join, status, admit, and the operators' view and
// controls. Join, status and admit never touch the seat database: show rules come
// from the in-memory cache (its last copy while the database is down), the queue
// from its store.
import { DomainError, notFound } from '../domain/errors.js';
import { newId, randomHex } from '../domain/ids.js';
import type { Principal } from '../auth/tokens.js';
import { effectiveRate } from '../waiting-room/advance.js';
import type { RoomState } from '../waiting-room/store.js';
import { StoreUnavailable } from '../waiting-room/store.js';
import * as changes from '../db/waitingRoom.js';
import type { ShowRule } from './showRules.js';
import type { Context } from './context.js';

const RETRY_WHEN_UNAVAILABLE = 5;
const MAX_POLL_SECONDS = 30;

export interface QueueStatus {
  serving: number;
  waiting: number;
  admit_rate_per_minute: number;
  paused: boolean;
  sold_out: boolean;
  sale_opens_at: string;
  opened: boolean;
  /** Published once the sale opened: recompute the pre-queue's order with docs/waiting-room.md. */
  opening?: { seed: string; pre_queue: number; opened_at: string };
}

async function roomRule(ctx: Context, showId: string, staleOk = false): Promise<ShowRule> {
  const rule = staleOk ? await ctx.showRules.getOrStale(showId) : await ctx.showRules.get(showId);
  if (!rule) throw notFound('show');
  if (!rule.waitingRoom) throw new DomainError('NO_WAITING_ROOM', 'this show does not sell through a waiting room');
  return rule;
}

/** The store's failures as the contract's "try again": 503 OVERLOADED with Retry-After; anything else as it was. */
function tryAgain(err: unknown): never {
  if (err instanceof StoreUnavailable) {
    throw new DomainError('OVERLOADED', 'the waiting room cannot be reached right now; try again shortly', { retry_after: RETRY_WHEN_UNAVAILABLE });
  }
  throw err;
}

async function fromStore<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    return tryAgain(err);
  }
}

function rateOf(ctx: Context, s: RoomState): number {
  return s.opened ? effectiveRate(s.rate ?? ctx.room.ratePerMinute(), s) : 0;
}

/**
 * Seconds until a position could be served at the earliest: counted at the fastest
 * rate the room may reach (its ceiling, under the operators' cap), not at the
 * controller's rate of the moment, so a buyer told "not yet" while the room was
 * closed is back when it opens again rather than away for the slow rate's estimate.
 * At least 1, at most MAX_POLL_SECONDS (ask again then).
 */
function retryAfter(ctx: Context, rule: ShowRule, s: RoomState, position: number | null): number {
  const nowMs = ctx.showRules.dbNow();
  if (!s.opened) return Math.max(1, Math.min(MAX_POLL_SECONDS, Math.ceil((rule.saleOpensAtMs - nowMs) / 1000)));
  if (position === null) return 1;
  const fastest = effectiveRate(ctx.room.ceilingPerMinute(), s);
  if (fastest === 0) return MAX_POLL_SECONDS / 3;
  return Math.max(1, Math.min(MAX_POLL_SECONDS, Math.ceil(((position - s.serving) / fastest) * 60)));
}

/** Seconds the place must wait before it can be admitted (paused: a third of the longest poll), or null when it may be admitted now. */
function waitBeforeAdmit(ctx: Context, rule: ShowRule, s: RoomState, position: number | null): number | null {
  if (position !== null && position <= s.serving && !s.paused && !s.soldOut) return null;
  return s.paused ? MAX_POLL_SECONDS / 3 : retryAfter(ctx, rule, s, position);
}

/**
 * When a place should first ask to be admitted, in seconds: 0 when it is served
 * already; otherwise the pacing a NOT_YET_ADMITTED answer would give. A buyer who
 * follows it does not spend a request (thousands a second while a crowd arrives)
 * on an admit that can only say "not yet". 1 when the store cannot say.
 */
async function firstAsk(ctx: Context, rule: ShowRule, showId: string, position: number | null): Promise<number> {
  try {
    return waitBeforeAdmit(ctx, rule, await ctx.room.stateForJoin(showId), position) ?? 0;
  } catch (err) {
    if (err instanceof StoreUnavailable) return 1;
    throw err;
  }
}

/** Joins the show's queue: one place per account; asking again answers the same place, unless it lapsed (then a new one at the back). */
export async function joinQueue(ctx: Context, user: Principal, showId: string): Promise<{ queue_token: string; position: number | null; pre_queue: boolean; retry_after_seconds: number }> {
  const rule = await roomRule(ctx, showId, true);
  if (rule.cancelled) throw new DomainError('SHOW_CANCELLED', 'this show has been cancelled: its queue takes nobody');
  if (ctx.showRules.dbNow() >= rule.startsAtMs) throw new DomainError('SALE_CLOSED', 'the sale for this show has closed');
  // From the ids' pooled CSPRNG output: a system call a join cost the service's one thread
  // about 2 % of its time while a crowd arrived (bench:overload's profile); only the join
  // that opens the room keeps its seed.
  const seed = randomHex(16);
  try {
    const entry = await ctx.room.store.join(showId, user.userId, newId('qe'), { opensAtMs: rule.saleOpensAtMs, nowMs: ctx.showRules.dbNow(), seed });
    ctx.metrics.queueJoins.inc();
    ctx.room.ticker.watch(showId);
    const queue_token = ctx.room.tokens.issueQueue({ userId: user.userId, showId, entryId: entry.entryId });
    return { queue_token, position: entry.position, pre_queue: entry.position === null, retry_after_seconds: await firstAsk(ctx, rule, showId, entry.position) };
  } catch (err) {
    if (!(err instanceof StoreUnavailable) || !ctx.config.waitingRoom.failOpen) return tryAgain(err);
    // Failing open: no place can be given, so everyone is at the front (position 0 is always served).
    const queue_token = ctx.room.tokens.issueQueue({ userId: user.userId, showId, entryId: newId('qe') });
    return { queue_token, position: 0, pre_queue: false, retry_after_seconds: 0 };
  }
}

export async function queueStatus(ctx: Context, showId: string): Promise<QueueStatus> {
  const rule = await roomRule(ctx, showId, true);
  const s = await fromStore(() => ctx.room.state(showId));
  const status: QueueStatus = {
    serving: s.serving,
    waiting: s.opened ? Math.max(0, s.tail - s.serving) : s.preQueue,
    admit_rate_per_minute: rateOf(ctx, s),
    paused: s.paused,
    sold_out: s.soldOut,
    sale_opens_at: new Date(rule.saleOpensAtMs).toISOString(),
    // A room nobody joined yet opens in the store at its first join; the sale is open all the same.
    opened: s.opened || ctx.showRules.dbNow() >= rule.saleOpensAtMs,
  };
  if (s.opened && s.seed) status.opening = { seed: s.seed, pre_queue: s.preQueue, opened_at: new Date(s.openedAtMs!).toISOString() };
  return status;
}

/**
 * Exchanges a queue token whose position is served for an admission token. The
 * store remembers the admission: asking again gives the same one (same expiry,
 * same token), and a place not admitted within its grace period has lapsed.
 */
export async function admit(ctx: Context, user: Principal, showId: string, queueToken: string): Promise<{ admission_token: string; expires_at: string }> {
  const rule = await roomRule(ctx, showId, true);
  const claims = ctx.room.tokens.verifyQueue(queueToken);
  if (!claims || claims.userId !== user.userId || claims.showId !== showId) {
    throw new DomainError('TOKEN_INVALID', 'this queue token is not valid for you and this show');
  }
  // Long enough to hold (within the grace period), let the hold run out, and pay once more.
  const lifetimeSeconds = ctx.config.waitingRoom.graceSeconds + 2 * rule.holdTtlSeconds + Math.ceil(ctx.config.paymentTimeoutMs / 1000);
  let position: number;
  let expiresAtS = Math.floor(Date.now() / 1000) + lifetimeSeconds;
  try {
    const entry = await ctx.room.store.entry(showId, user.userId);
    if (!entry || entry.entryId !== claims.entryId) throw new DomainError('TOKEN_INVALID', 'this queue token is not this account\'s place in the queue');
    const s = await ctx.room.state(showId);
    const retry = waitBeforeAdmit(ctx, rule, s, entry.position);
    if (retry !== null) {
      const why = s.soldOut ? 'the show is sold out' : s.paused ? 'the room is paused' : entry.position === null ? 'the sale has not opened yet: places are drawn at the opening' : 'your turn has not come yet';
      ctx.metrics.queueAdmits.inc({ result: 'not_yet' });
      throw new DomainError('NOT_YET_ADMITTED', why, {
        position: entry.position, serving: s.serving, retry_after_seconds: retry, retry_after: retry, paused: s.paused, sold_out: s.soldOut,
      });
    }
    position = entry.position!;
    const admission = await ctx.room.store.admit(showId, user.userId, expiresAtS);
    if (admission === 'lapsed') {
      ctx.metrics.queueAdmits.inc({ result: 'lapsed' });
      throw new DomainError('ADMISSION_LAPSED', 'your turn came and was not taken within the grace period: join the queue again');
    }
    expiresAtS = admission.expiresAtS;
  } catch (err) {
    if (!(err instanceof StoreUnavailable) || !ctx.config.waitingRoom.failOpen) return tryAgain(err);
    position = 0;
  }
  const { token, expiresAt } = ctx.room.tokens.issueAdmission({ userId: user.userId, showId, position, expiresAtS });
  ctx.metrics.queueAdmits.inc({ result: 'admitted' });
  return { admission_token: token, expires_at: expiresAt.toISOString() };
}

export interface AdminQueueView {
  serving: number;
  waiting: number;
  admitted: number;
  admit_rate_per_minute: number;
  paused: boolean;
  max_admit_per_minute: number | null;
  sold_out: boolean;
  controller: Record<string, unknown>;
  changes: { by: string; change: Record<string, unknown>; at: string }[];
}

export async function adminQueueView(ctx: Context, showId: string): Promise<AdminQueueView> {
  await roomRule(ctx, showId);
  const s = await fromStore(() => ctx.room.store.state(showId));
  const recent = await changes.recentChanges(await ctx.inventory.ofShow(showId), showId, 20);
  return {
    serving: s.serving,
    waiting: s.opened ? Math.max(0, s.tail - s.serving) : s.preQueue,
    admitted: s.admitted,
    admit_rate_per_minute: rateOf(ctx, s),
    paused: s.paused,
    max_admit_per_minute: s.cap,
    sold_out: s.soldOut,
    controller: {
      rule: ctx.room.controller ? 'measured' : 'fixed_rate',
      ...(ctx.room.controller ? ctx.room.controller.view() : {}),
      configured_rate_per_minute: ctx.config.waitingRoom.admitPerMinute,
      grace_seconds: ctx.config.waitingRoom.graceSeconds,
      tick_ms: ctx.config.waitingRoom.tickMs,
      opened: s.opened,
      pre_queue: s.preQueue,
      queue_length: s.tail,
      no_shows: s.noShows,
      store: ctx.room.store.kind,
    },
    changes: recent.map((c) => ({ by: c.actor_id, change: c.change, at: c.changed_at.toISOString() })),
  };
}

/** Pause, resume and cap; each change recorded with who made it and when. */
export async function changeQueue(
  ctx: Context, admin: Principal, showId: string, input: { action?: 'pause' | 'resume'; max_admit_per_minute?: number | null },
): Promise<AdminQueueView> {
  await roomRule(ctx, showId);
  const change: Record<string, unknown> = {};
  if (input.action !== undefined) change.action = input.action;
  if (input.max_admit_per_minute !== undefined) change.max_admit_per_minute = input.max_admit_per_minute;
  // The record commits only if the store took the change: no record of a change that did not happen.
  await (await ctx.inventory.ofShow(showId)).transaction(async (tx) => {
    await changes.recordChange(tx, { showId, actorId: admin.userId, change });
    await fromStore(() => ctx.room.store.control(showId, {
      ...(input.action !== undefined ? { paused: input.action === 'pause' } : {}),
      ...(input.max_admit_per_minute !== undefined ? { cap: input.max_admit_per_minute } : {}),
    }));
  });
  return adminQueueView(ctx, showId);
}
