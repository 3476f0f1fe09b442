// Provider webhooks, recorded once per event id.
import type { Queryable } from './client.js';

export interface WebhookEventRow {
  id: string;
  type: string;
  payload: unknown;
}

/**
 * Records the event: 'duplicate' when this event id was already recorded; 'settled'
 * when it only repeats what our payment attempt already says (`repeats`: the attempt
 * and the status the event claims), so it is recorded as processed at once — it
 * cannot change anything, and needs no read-back; otherwise 'recorded'. One statement.
 */
export async function recordEvent(
  db: Queryable, e: WebhookEventRow, repeats: { attemptId: string; status: 'succeeded' | 'failed' } | null = null,
): Promise<'duplicate' | 'settled' | 'recorded'> {
  const r = await db.query<{ settled: boolean }>(
    `insert into webhook_events (id, type, payload, processed_at)
     values ($1, $2, $3, case when exists (select 1 from payment_attempts where id = $4 and status = $5) then now() end)
     on conflict (id) do nothing
     returning processed_at is not null as settled`,
    [e.id, e.type, JSON.stringify(e.payload), repeats?.attemptId ?? null, repeats?.status ?? null],
  );
  const row = r.rows[0];
  return !row ? 'duplicate' : row.settled ? 'settled' : 'recorded';
}

export async function markProcessed(db: Queryable, id: string): Promise<void> {
  await db.query('update webhook_events set processed_at = now() where id = $1 and processed_at is null', [id]);
}

/** Recorded but never processed (the instance died in between), oldest first. */
export async function unprocessedEvents(db: Queryable, olderThanSeconds: number, limit: number): Promise<WebhookEventRow[]> {
  const r = await db.query<WebhookEventRow>(
    `select id, type, payload from webhook_events
      where processed_at is null and received_at < now() - make_interval(secs => $1)
      order by received_at limit $2`,
    [olderThanSeconds, limit],
  );
  return r.rows;
}
