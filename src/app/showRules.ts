// Per-instance memory of the show settings the purchase path and the waiting room
// need on every request (waiting room, sale window, per-user limit, hold TTL),
// with bounded staleness: every cached show is read again, in one query, once its
// copy is older than `refreshMs`; a copy older than twice that is not used by the
// gate (it waits for a fresh one). The same query reads the database clock, so
// sale windows are judged in process on the database's time, not this server's.
// A read is shared: however many requests need a show's fresh copy at once (a
// crowd's first joins, every hold while a refresh is late), one query is in flight
// for it. Without that, an on-sale's opening sent one query per request into a
// pool already full of holds, and every answer waited behind the pile.
import type { Queryable } from '../db/client.js';
import { showRules, type ShowRuleRow } from '../db/waitingRoom.js';
import type { ShowRule } from '../domain/shows.js';

export type { ShowRule };

const MAX_SHOWS = 10_000;
/** A show nobody asked about for this long is dropped at the next refresh instead of read again. */
const IDLE_MS = 60_000;

function toRule(r: ShowRuleRow): ShowRule {
  return {
    waitingRoom: r.waiting_room, saleOpensAtMs: r.sale_opens_at.getTime(), startsAtMs: r.starts_at.getTime(),
    perUserLimit: r.per_user_limit, holdTtlSeconds: r.hold_ttl_seconds, cancelled: r.cancelled,
  };
}

export class ShowRules {
  private readonly rules = new Map<string, { rule: ShowRule | null; atMs: number; usedMs: number }>();
  /** Database clock minus this server's clock, as of the last read. */
  private offsetMs = 0;
  private refreshing: Promise<void> | null = null;
  /** The read in flight for each show, which any caller needing that show waits on. */
  private readonly reading = new Map<string, Promise<void>>();
  private failedAtMs = 0;
  /** Shows whose shard did not answer the last read of them (with shards, one shard's failure is its shows' alone). */
  private readonly failures = new Map<string, unknown>();
  /** Where a show's last known rules are kept outside the seat database (the waiting room's store). */
  private lastKnown: ((showId: string) => Promise<ShowRule | null>) | null = null;

  /** `db`: where the shows' rows are, or where each show's is (its inventory database, which keeps a copy of the show's row). */
  constructor(private readonly db: Queryable | ((showId: string) => Promise<Queryable>), readonly refreshMs: number) {}

  /** Names where getOrStale finds a show's rules it has not in memory while the database does not answer. */
  fallBackTo(lastKnown: (showId: string) => Promise<ShowRule | null>): void {
    this.lastKnown = lastKnown;
  }

  /** The database's time now, as this instance estimates it. */
  dbNow(): number {
    return Date.now() + this.offsetMs;
  }

  /**
   * The show's rules (null: no such show), no older than twice refreshMs, except
   * that a caller finding a read of the show under way waits for that one: its copy
   * is as of when it was sent, at most one database answer's time before the caller.
   */
  async get(showId: string): Promise<ShowRule | null> {
    const known = this.rules.get(showId);
    const age = known ? Date.now() - known.atMs : Infinity;
    if (known && age < 2 * this.refreshMs) {
      known.usedMs = Date.now();
      if (age >= this.refreshMs) void this.refresh().catch(() => {});
      return known.rule;
    }
    await (this.reading.get(showId) ?? this.read([showId]));
    const entry = this.rules.get(showId);
    if (!entry) throw this.failures.get(showId) ?? new Error(`the rules of show ${showId} could not be read`);
    this.failures.delete(showId);
    return entry.rule;
  }

  /**
   * Like get, but while the database does not answer, the last copy however old (queue
   * status keeps answering): this instance's, else the one kept outside the database
   * (fallBackTo) for a show it has not in memory (a new instance, an evicted show).
   */
  async getOrStale(showId: string): Promise<ShowRule | null> {
    const known = this.rules.get(showId);
    // The database failed a moment ago: answer from memory without waiting on it again.
    if (Date.now() - this.failedAtMs < this.refreshMs) {
      if (known?.rule) return known.rule;
      const kept = await this.kept(showId);
      if (kept) return kept;
    }
    try {
      return await this.get(showId);
    } catch (err) {
      if (known?.rule) return known.rule;
      const kept = await this.kept(showId);
      if (kept) return kept;
      throw err;
    }
  }

  private async kept(showId: string): Promise<ShowRule | null> {
    return this.lastKnown ? this.lastKnown(showId).catch(() => null) : null;
  }

  /** Forgets a show this instance just changed, so its next read is fresh. */
  forget(showId: string): void {
    this.rules.delete(showId);
    // A read under way may have been sent before the change: the next caller asks anew.
    this.reading.delete(showId);
  }

  /** Every cached show in use again, in one query (one at a time); idle ones are dropped. */
  private refresh(): Promise<void> {
    const idleBefore = Date.now() - IDLE_MS;
    for (const [id, entry] of this.rules) if (entry.usedMs < idleBefore) this.rules.delete(id);
    this.refreshing ??= this.read([...this.rules.keys()]).finally(() => { this.refreshing = null; });
    return this.refreshing;
  }

  /** One query for these shows; each is marked as being read until it answers. */
  private read(ids: string[]): Promise<void> {
    const done = this.query(ids).finally(() => {
      for (const id of ids) if (this.reading.get(id) === done) this.reading.delete(id);
    });
    for (const id of ids) this.reading.set(id, done);
    return done;
  }

  /**
   * One query per database the shows are on, side by side: a shard that does not
   * answer fails only its own shows (`failed`); the clock of the last that answered.
   */
  private async readRules(ids: string[]): Promise<{ rows: ShowRuleRow[]; now: Date; failed: Map<string, unknown> }> {
    const source = this.db;
    if (typeof source !== 'function') return { ...(await showRules(source, ids)), failed: new Map() };
    const byDb = new Map<Queryable, string[]>();
    for (const id of ids) {
      const db = await source(id);
      byDb.set(db, [...(byDb.get(db) ?? []), id]);
    }
    const groups = [...byDb];
    const answers = await Promise.allSettled(groups.map(([db, of]) => showRules(db, of)));
    const failed = new Map<string, unknown>();
    const rows: ShowRuleRow[] = [];
    let now: Date | null = null;
    answers.forEach((a, i) => {
      if (a.status === 'fulfilled') {
        rows.push(...a.value.rows);
        now = a.value.now;
      } else for (const id of groups[i]![1]) failed.set(id, a.reason);
    });
    if (now === null && groups.length > 0) throw (answers[0] as PromiseRejectedResult).reason;
    return { rows, now: now ?? new Date(this.dbNow()), failed };
  }

  private async query(ids: string[]): Promise<void> {
    const sentAt = Date.now();
    const { rows, now, failed } = await this.readRules(ids).catch((err: unknown) => {
      this.failedAtMs = Date.now();
      throw err;
    });
    const receivedAt = Date.now();
    this.offsetMs = now.getTime() - (sentAt + receivedAt) / 2;
    if (this.rules.size + ids.length > MAX_SHOWS) this.rules.clear();
    const found = new Map(rows.map((r) => [r.id, toRule(r)]));
    for (const id of ids) {
      if (failed.has(id)) continue; // its shard did not answer: the copy it had stays, as long as it may
      const known = this.rules.get(id);
      // A read sent later (after a forget) answered first: its copy is the newer one.
      if (known && known.atMs > sentAt) continue;
      this.rules.set(id, { rule: found.get(id) ?? null, atMs: sentAt, usedMs: known?.usedMs ?? sentAt });
    }
    // Why a show's shard did not answer, for a caller that waited for this read and finds no copy.
    for (const [id, err] of failed) this.failures.set(id, err);
    if (this.failures.size > MAX_SHOWS) this.failures.clear();
  }
}
