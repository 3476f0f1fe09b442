import type { Database } from '../db/client.js';

/**
 * The one door to a show's inventory: its seats, holds, bookings, payment attempts,
 * refunds, tickets, seat change feed and outbox. Every show-scoped statement runs on
 * the database this door names, so the code reads the same with one database or with
 * a shard per show (the control database keeps accounts, the catalog and placements).
 */
export interface Inventory {
  /** The database holding this show's inventory. */
  ofShow(showId: string): Promise<Database>;
  /** The database holding the record an id names (hold, booking, payment attempt, refund, ticket). */
  ofRecord(id: string): Promise<Database>;
  /** Every inventory database once: for the workers and for reads across shows. */
  all(): readonly Database[];
}

/** One database serves every show (the default, PGlite included). */
export function singleInventory(db: Database): Inventory {
  return {
    ofShow: async () => db,
    ofRecord: async () => db,
    all: () => [db],
  };
}
