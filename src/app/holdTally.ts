// Counts holds created and refused per show in memory and adds them to
// show_stats in one statement per flush, keeping the claim free of counter writes.
// A crash loses at most one flush interval of these statistics, never a seat.
import type { Queryable } from '../db/client.js';
import type { Inventory } from './inventory.js';
import { addHoldCounts, type HoldCounts } from '../db/stats.js';

export class HoldTally {
  private pending = new Map<string, HoldCounts>();

  count(showId: string, outcome: 'created' | 'conflict'): void {
    const t = this.pending.get(showId) ?? { created: 0, conflicts: 0 };
    if (outcome === 'created') t.created++;
    else t.conflicts++;
    this.pending.set(showId, t);
  }

  /** Adds the counts to each show's row on its own inventory database (one statement per database), or all on `to`. */
  async flush(to: Inventory | Queryable): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      const byDb = new Map<Queryable, Map<string, HoldCounts>>();
      for (const [id, t] of batch) {
        const db = 'ofShow' in to ? await to.ofShow(id) : to;
        const of = byDb.get(db) ?? new Map<string, HoldCounts>();
        byDb.set(db, of.set(id, t));
      }
      await Promise.all([...byDb].map(([db, counts]) => addHoldCounts(db, counts)));
    } catch (err) {
      // Put the counts back for the next flush.
      for (const [id, t] of batch) {
        const now = this.pending.get(id) ?? { created: 0, conflicts: 0 };
        this.pending.set(id, { created: now.created + t.created, conflicts: now.conflicts + t.conflicts });
      }
      throw err;
    }
  }
}
