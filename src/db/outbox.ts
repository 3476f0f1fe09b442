// The outbox: side effects recorded with the change that causes them, delivered
// at least once. Workers lease due rows with SKIP LOCKED, so any number of them
// can run beside each other, and a worker that dies only delays its rows.
import type { Queryable } from './client.js';

export type OutboxTopic = 'ticket.issue' | 'refund.create';

export interface OutboxEvent {
  id: number;
  topic: OutboxTopic;
  payload: Record<string, string>;
  attempts: number;
}

export async function enqueue(tx: Queryable, topic: OutboxTopic, payload: Record<string, string>): Promise<void> {
  await tx.query('insert into outbox (topic, payload) values ($1, $2)', [topic, JSON.stringify(payload)]);
}

/** Leases due rows of one topic, so a slow topic (refunds) never holds up another (tickets). */
export async function leaseDue(db: Queryable, topic: OutboxTopic, limit: number, leaseSeconds: number): Promise<OutboxEvent[]> {
  const r = await db.query<OutboxEvent>(
    `with due as (
       select id from outbox
        where topic = $3 and done_at is null and next_attempt_at <= now() and (lease_until is null or lease_until < now())
        order by id
        limit $1
          for update skip locked
     )
     update outbox o set lease_until = now() + make_interval(secs => $2), attempts = o.attempts + 1
       from due where o.id = due.id
     returning o.id, o.topic, o.payload, o.attempts`,
    [limit, leaseSeconds, topic],
  );
  return r.rows;
}

export async function markDone(db: Queryable, id: number): Promise<void> {
  await db.query('update outbox set done_at = now(), lease_until = null where id = $1', [id]);
}

export async function markFailed(db: Queryable, id: number, error: string, retryInSeconds: number): Promise<void> {
  await db.query(
    `update outbox set last_error = $2, lease_until = null, next_attempt_at = now() + make_interval(secs => $3) where id = $1`,
    [id, error.slice(0, 500), retryInSeconds],
  );
}
