// Every instance ticks every room: closes a pre-queue once its sale opens, writes
// the opening's order (one instance at a time, under a lease), moves serving by
// the admission rule, and notes sell-out. Advancing is a time integral in the
// store (rate × time since the last advance), so any number of instances ticking
// at once admit at the rate, not at a multiple of it.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { WaitingRoomSettings } from '../config.js';
import type { ShowRule } from '../domain/shows.js';
import { openingOrder } from './fairOpening.js';
import { StoreUnavailable, type QueueStore } from './store.js';

const ROOMS_REFRESH_MS = 1000;
/**
 * Rooms ticked at once. On a Redis Cluster with a master down, each of that
 * master's rooms takes a moment to fail: ticked one after another they would
 * hold back the rooms on the other masters.
 */
const ROOMS_AT_ONCE = 16;
/** A room whose store did not answer is left alone this long (its master may be down). */
const ROOM_BACKOFF_MS = 1000;
const SOLD_OUT_PROBE_MS = 3000;
/** A room is kept a day past its show's start (late status polls), then deleted. */
const KEEP_AFTER_START_MS = 86_400_000;

/** Where the ticker reads a show's rules and the database's time (app/showRules.ts, a cached copy). */
export interface RuleSource {
  /** The show's rules (null: no such show); while the database does not answer, the last known copy. */
  getOrStale(showId: string): Promise<ShowRule | null>;
  /** The database's time now, in ms, as this instance estimates it. */
  dbNow(): number;
}

export interface TickerLog {
  warn(obj: object, msg: string): void;
}

export class RoomTicker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private rooms: string[] = [];
  private roomsAtMs = 0;
  private readonly soldOutAtMs = new Map<string, number>();
  /** The rules this instance last kept with each room (the store's copy), as JSON. */
  private readonly keptRules = new Map<string, string>();
  /** Rooms whose store did not answer, and when. */
  private readonly unavailableAtMs = new Map<string, number>();
  private lastWarnedMs = 0;
  private readonly instanceId = `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;

  constructor(
    private readonly store: QueueStore,
    private readonly rules: RuleSource,
    private readonly settings: Readonly<WaitingRoomSettings>,
    /** The admission rule's rate for a show now (PHASE 1: the configured rate). */
    private readonly rate: (showId: string) => number,
    private readonly soldOut: (showId: string) => Promise<boolean>,
    private readonly log?: TickerLog,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => { this.running ??= this.tick().finally(() => { this.running = null; }); }, this.settings.tickMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** The rooms this instance ticks. */
  watched(): readonly string[] {
    return this.rooms;
  }

  /** Ticks this room from now on (a join here made it), before the next read of the store's list. */
  watch(showId: string): void {
    if (!this.rooms.includes(showId)) this.rooms = [...this.rooms, showId];
  }

  /** One pass over every room; exposed for tests. */
  async tick(): Promise<void> {
    try {
      if (Date.now() - this.roomsAtMs > ROOMS_REFRESH_MS) {
        this.rooms = await this.store.rooms();
        this.roomsAtMs = Date.now();
      }
    } catch (err) {
      this.warn(err); // the rooms known already are ticked all the same
    }
    const now = Date.now();
    const due = this.rooms.filter((id) => now - (this.unavailableAtMs.get(id) ?? 0) >= ROOM_BACKOFF_MS);
    let next = 0;
    // One room's failure (its master down, its show's rules unreadable) must not stall the others.
    await Promise.all(Array.from({ length: Math.min(ROOMS_AT_ONCE, due.length) }, async () => {
      while (next < due.length) {
        const showId = due[next++]!;
        try {
          await this.tickRoom(showId);
          this.unavailableAtMs.delete(showId);
        } catch (err) {
          if (err instanceof StoreUnavailable) {
            if (this.unavailableAtMs.size > 10_000) this.unavailableAtMs.clear();
            this.unavailableAtMs.set(showId, Date.now());
          }
          this.warn(err);
        }
      }
    }));
  }

  private warn(err: unknown): void {
    if (Date.now() - this.lastWarnedMs < 10_000) return;
    this.lastWarnedMs = Date.now();
    this.log?.warn({ err: (err as Error).message }, 'waiting room: tick failed');
  }

  private async tickRoom(showId: string): Promise<void> {
    const rule = await this.rules.getOrStale(showId);
    if (!rule?.waitingRoom) return;
    const json = JSON.stringify(rule);
    if (this.keptRules.get(showId) !== json) {
      await this.store.keepRule(showId, rule);
      if (this.keptRules.size > 10_000) this.keptRules.clear();
      this.keptRules.set(showId, json);
    }
    const nowMs = this.rules.dbNow();
    if (nowMs > rule.startsAtMs + KEEP_AFTER_START_MS) {
      await this.store.forget(showId);
      this.keptRules.delete(showId);
      this.rooms = this.rooms.filter((id) => id !== showId);
      return;
    }
    let state = await this.store.state(showId);
    if (!state.opened && (await this.store.open(showId, { opensAtMs: rule.saleOpensAtMs, nowMs, seed: randomBytes(16).toString('hex') }))) {
      state = await this.store.state(showId);
    }
    if (state.opened && !state.ranked && (await this.store.lease(showId, 'opening', 30_000))) await this.writeOpening(showId, state.seed!);
    await this.store.advance(showId, {
      ratePerMinute: this.rate(showId), graceMs: this.settings.graceSeconds * 1000,
      instanceId: this.instanceId, rateTtlMs: 5 * Math.max(this.settings.tickMs, this.settings.controlMs), firstStepMs: this.settings.tickMs,
    });
    if (state.opened && Date.now() - (this.soldOutAtMs.get(showId) ?? 0) > SOLD_OUT_PROBE_MS) {
      this.soldOutAtMs.set(showId, Date.now());
      // The seat database may be down: the room keeps its last word on sell-out.
      const soldOut = await this.soldOut(showId).catch(() => null);
      if (soldOut !== null && soldOut !== state.soldOut) await this.store.setSoldOut(showId, soldOut);
    }
  }

  /** Places the pre-queue in the order its seed gives (idempotent: any instance may redo it). */
  async writeOpening(showId: string, seed: string): Promise<void> {
    const pre = await this.store.preQueue(showId);
    const order = openingOrder(seed, pre.keys());
    await this.store.writeOpening(showId, order.map((entryId, i) => [pre.get(entryId)!, i + 1] as const));
  }
}
