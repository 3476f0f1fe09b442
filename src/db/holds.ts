// The hold: read, release, and its status moves (the claim is in seatTransitions.ts).
import type { Queryable } from './client.js';
import { HOLD_MOVES, type HoldStatus } from '../domain/states.js';
import { releaseSeats } from './seatTransitions.js';
import { statusIn } from './statusGuard.js';

export interface HoldRow {
  hold_id: string;
  show_id: string;
  user_id: string;
  seats: string[];
  /** An active hold past its expiry reads as expired. */
  status: HoldStatus;
  expires_at: Date;
  amount: number;
  currency: string;
}

export async function findHold(db: Queryable, holdId: string): Promise<HoldRow | null> {
  const r = await db.query<HoldRow>(
    `select id as hold_id, show_id, user_id, seats, expires_at, amount, currency,
            case when status = 'active' and expires_at <= bo_now() then 'expired' else status end as status
       from holds where id = $1`,
    [holdId],
  );
  return r.rows[0] ?? null;
}

/**
 * Releases an active hold of this user and frees its seats at once (one
 * statement, seatTransitions.releaseSeats). Returns false when there was no
 * active hold to release (an expired hold stays expired: its seats are already
 * free for the next claim).
 */
export async function releaseHold(db: Queryable, holdId: string, userId: string): Promise<boolean> {
  return (await releaseSeats(db, holdId, userId)).released;
}

/** active, past its expiry → expired (the sweeper; reads the same as before, see findHold). */
export async function expireLapsedHolds(db: Queryable): Promise<number> {
  const r = await db.query(
    `update holds set status = '${HOLD_MOVES.expire.to}' where ${statusIn(HOLD_MOVES.expire.from)} and expires_at <= bo_now()`,
  );
  return r.rowCount;
}

/** A hold's move under its booking's lock; returns the rows changed (0 when the move is not allowed from its status). */
export async function moveHold(tx: Queryable, holdId: string, move: 'confirm' | 'seatsLost' | 'decline'): Promise<number> {
  const { from, to } = HOLD_MOVES[move];
  const r = await tx.query(`update holds set status = '${to}' where id = $1 and ${statusIn(from)}`, [holdId]);
  return r.rowCount;
}
