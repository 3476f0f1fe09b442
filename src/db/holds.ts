// The hold, read. Its rows are written with its seats' in src/db/seatTransitions.ts.
import type { Queryable } from './client.js';
import type { HoldStatus } from '../domain/states.js';

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
