// The waiting room of one instance: its queue store (shared through Redis — a
// Redis Cluster with REDIS_CLUSTER_NODES, else REDIS_URL — or in process), its tokens, and its ticker. The use-cases are in src/app/waitingRoom.ts;
// the purchase path's gate is in ./gate.ts.
import type { Config } from '../config.js';
import { MemoryQueueStore } from './memoryStore.js';
import { RedisQueueStore } from './redisStore.js';
import type { QueueStore, RoomState } from './store.js';
import { RoomTicker, type RuleSource, type TickerLog } from './ticker.js';
import { RoomTokens } from './tokens.js';
import { AdmissionController, type Signals } from './admissionController.js';

const STATUS_CACHE_MS = 500;
const PRESENCE_MEMORY = 100_000;

export class WaitingRoom {
  readonly ticker: RoomTicker;
  /** Null when WAITING_ROOM_CONTROL_MS=0: the fixed rate. */
  readonly controller: AdmissionController | null;
  private controlTimer: NodeJS.Timeout | null = null;
  private readonly statuses = new Map<string, { state: RoomState; atMs: number }>();
  private readonly seen = new Set<string>();

  constructor(
    readonly store: QueueStore,
    readonly tokens: RoomTokens,
    readonly rules: RuleSource,
    readonly config: Readonly<Config>,
    soldOut: (showId: string) => Promise<boolean>,
    private readonly signals: () => Signals,
    log?: TickerLog,
  ) {
    const w = config.waitingRoom;
    this.controller = w.controlMs > 0 ? new AdmissionController(w.admitPerMinute, Math.min(w.minAdmitPerMinute, w.admitPerMinute)) : null;
    this.ticker = new RoomTicker(store, rules, w, () => this.ratePerMinute(), soldOut, log);
  }

  static open(
    config: Readonly<Config>, secret: string, rules: RuleSource, soldOut: (showId: string) => Promise<boolean>, signals: () => Signals, log?: TickerLog,
  ): WaitingRoom {
    const target = config.redisClusterNodes ?? config.redisUrl;
    const store = target ? new RedisQueueStore(target, config.waitingRoom.prefix) : new MemoryQueueStore();
    return new WaitingRoom(store, new RoomTokens(secret), rules, config, soldOut, signals, log);
  }

  /** Starts the ticker and the controller. */
  start(): void {
    this.ticker.start();
    if (this.controller && !this.controlTimer) {
      this.signals(); // a fresh window
      this.controlTimer = setInterval(() => this.controller!.tick(this.signals()), this.config.waitingRoom.controlMs);
      this.controlTimer.unref();
    }
  }

  /** The admission rate before operators' pause and cap: the controller's, or the configured one. */
  ratePerMinute(): number {
    return this.controller ? this.controller.ratePerMinute() : this.config.waitingRoom.admitPerMinute;
  }

  /** The fastest admission rate the rule may reach: the controller's ceiling, or the configured rate. */
  ceilingPerMinute(): number {
    return this.config.waitingRoom.admitPerMinute;
  }

  /** The room's state, reused for a moment: polls of a hot show come by the thousand a second. */
  async state(showId: string): Promise<RoomState> {
    const hit = this.freshCopy(showId);
    if (hit) return hit;
    const state = await this.store.state(showId);
    if (this.statuses.size > 10_000) this.statuses.clear();
    this.statuses.set(showId, { state, atMs: Date.now() });
    return state;
  }

  /**
   * The room's state as a join sees it: the shared copy while it is fresh, else the
   * store's, not kept — joins change what it counts, and a copy taken amid a burst
   * of them would hold status answers back.
   */
  async stateForJoin(showId: string): Promise<RoomState> {
    return this.freshCopy(showId) ?? this.store.state(showId);
  }

  private freshCopy(showId: string): RoomState | undefined {
    const hit = this.statuses.get(showId);
    return hit && Date.now() - hit.atMs < STATUS_CACHE_MS ? hit.state : undefined;
  }

  /** Notes (once per instance) that an admitted position came to the purchase path, so it is no no-show. */
  present(showId: string, position: number): void {
    const key = `${showId}/${position}`;
    if (this.seen.has(key)) return;
    if (this.seen.size >= PRESENCE_MEMORY) this.seen.clear();
    this.seen.add(key);
    // Best effort: a lost mark only makes the room admit one more.
    this.store.present(showId, position).catch(() => this.seen.delete(key));
  }

  async close(): Promise<void> {
    if (this.controlTimer) clearInterval(this.controlTimer);
    await this.ticker.stop();
    await this.store.close();
  }
}
