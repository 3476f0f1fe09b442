import type { Database } from '../db/client.js';

/**
 * The one door to a show's inventory: its seats, holds, bookings, payment attempts,
 * refunds, tickets, seat change feed and outbox. Every show-scoped statement runs on
 * the database this door names, so the code reads the same with one database or with
 * a shard per show (the control database keeps accounts, the catalog and placements).
 */
export interface Inventory {
  /**
   * The database holding this show's inventory. `purchase`: for a hold or a booking,
   * refused with 503 OVERLOADED while the show is moving between shards (its map keeps answering).
   */
  ofShow(showId: string, o?: { purchase?: boolean }): Promise<Database>;
  /** The database holding the record an id names (hold, booking, payment attempt, refund, ticket). */
  ofRecord(id: string, o?: { purchase?: boolean }): Promise<Database>;
  /**
   * Looks a record up by its id where it lives: `look` runs on the record's database; when
   * it finds nothing there and the record's show has moved to another shard since this
   * instance cached its placement, `look` runs again on the show's new shard. Answers the
   * database it looked on last and what it found (null: nowhere).
   */
  findRecord<T>(id: string, look: (db: Database) => Promise<T | null>): Promise<{ db: Database; found: T | null }>;
  /** Every inventory database once: for the workers and for reads across shows. */
  all(): readonly Database[];
  /** Every inventory database with its shard's name (`main` for the one database). */
  named(): readonly { name: string; db: Database }[];
  /** The same door with its statements counted under `origin` (src/db/trips.ts). */
  as(origin: string): Inventory;
  /** True when the control database is the only inventory database (no SHARD_URLS). */
  readonly single: boolean;
  /**
   * After a show was not found on `tried`, where its cached placement pointed: reads the
   * placement afresh and answers the show's database when it is another (moved), else null.
   */
  moved(showId: string, tried: Database): Promise<Database | null>;
  /** Reads the show's placement afresh now (after this instance moved it), rather than at the next refresh. */
  follow(showId: string): Promise<void>;
}

/** One database serves every show (the default, PGlite included). */
export function singleInventory(db: Database): Inventory {
  return {
    ofShow: async () => db,
    ofRecord: async () => db,
    findRecord: async (_id, look) => ({ db, found: await look(db) }),
    all: () => [db],
    named: () => [{ name: 'main', db }],
    as: (origin) => singleInventory(db.as(origin)),
    single: true,
    moved: async () => null,
    follow: async () => {},
  };
}
