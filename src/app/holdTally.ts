// Counts holds created and refused per show in memory and adds them to
// show_stats in one statement per flush, keeping the claim free of counter writes.
// A crash loses at most one flush interval of these statistics, never a seat.
import type { Queryable } from '../db/client.js';

export class HoldTally {
  private pending = new Map<string, { created: number; conflicts: number }>();

  count(showId: string, outcome: 'created' | 'conflict'): void {
    const t = this.pending.get(showId) ?? { created: 0, conflicts: 0 };
    if (outcome === 'created') t.created++;
    else t.conflicts++;
    this.pending.set(showId, t);
  }

  async flush(db: Queryable): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const ids = [...batch.keys()];
    try {
      await db.query(
        `insert into show_stats (show_id, holds_created, hold_conflicts)
         select * from unnest($1::text[], $2::bigint[], $3::bigint[])
         on conflict (show_id) do update
           set holds_created = show_stats.holds_created + excluded.holds_created,
               hold_conflicts = show_stats.hold_conflicts + excluded.hold_conflicts`,
        [ids, ids.map((id) => batch.get(id)!.created), ids.map((id) => batch.get(id)!.conflicts)],
      );
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
