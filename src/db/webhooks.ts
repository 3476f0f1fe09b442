// Provider webhooks, recorded once per event id.
import type { Queryable } from './client.js';

export interface WebhookEventRow {
  id: string;
  type: string;
  payload: unknown;
}

/** Records the event; false when this event id was already recorded (a duplicate delivery). */
export async function recordEvent(db: Queryable, e: WebhookEventRow): Promise<boolean> {
  const r = await db.query('insert into webhook_events (id, type, payload) values ($1, $2, $3) on conflict (id) do nothing', [e.id, e.type, JSON.stringify(e.payload)]);
  return r.rowCount === 1;
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
