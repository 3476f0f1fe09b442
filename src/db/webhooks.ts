// Provider webhooks, recorded once per event id.
import type { Queryable } from './client.js';

export interface WebhookEventRow {
  id: string;
  type: string;
  payload: unknown;
}

/** What a payment event claims: this attempt has this status. */
export interface PaymentClaim {
  attemptId: string;
  status: 'succeeded' | 'failed';
}

export type RecordedAs = 'duplicate' | 'settled' | 'awaited' | 'recorded';

/**
 * Records events, one statement for all of them; for each, in order: 'duplicate' when
 * its id was already recorded; 'settled' when it only repeats what our payment attempt
 * already says (`claim`), so it is recorded as processed at once — it cannot change
 * anything, and needs no read-back; 'awaited' when the attempt it names is still inside
 * its booking request's wait for the provider (status `created`, before the
 * reconciler's turn): that request is about to record the same answer; otherwise
 * 'recorded'. The ids must differ.
 */
export async function recordEvents(
  db: Queryable, events: readonly { event: WebhookEventRow; claim: PaymentClaim | null }[],
): Promise<RecordedAs[]> {
  const r = await db.query<{ id: string; settled: boolean; awaited: boolean }>(
    `with incoming as (
       select * from jsonb_to_recordset($1::jsonb) as i(id text, type text, payload jsonb, attempt_id text, claimed text)
     ), recorded as (
       insert into webhook_events (id, type, payload, processed_at)
       select i.id, i.type, i.payload,
              case when exists (select 1 from payment_attempts a where a.id = i.attempt_id and a.status = i.claimed) then now() end
         from incoming i
       on conflict (id) do nothing
       returning id, processed_at is not null as settled
     )
     select r.id, r.settled,
            exists (select 1 from payment_attempts a where a.id = i.attempt_id and a.status = 'created' and a.next_check_at > bo_now()) as awaited
       from recorded r join incoming i on i.id = r.id`,
    [JSON.stringify(events.map(({ event: e, claim }) => ({ id: e.id, type: e.type, payload: e.payload, attempt_id: claim?.attemptId ?? null, claimed: claim?.status ?? null })))],
  );
  const byId = new Map(r.rows.map((row) => [row.id, row]));
  return events.map(({ event }) => {
    const row = byId.get(event.id);
    return !row ? 'duplicate' : row.settled ? 'settled' : row.awaited ? 'awaited' : 'recorded';
  });
}

/** Marks the event processed if its attempt now says what it claims; true when it did. */
export async function settleIfRepeated(db: Queryable, id: string, claim: PaymentClaim): Promise<boolean> {
  const r = await db.query(
    `update webhook_events set processed_at = now()
      where id = $1 and processed_at is null
        and exists (select 1 from payment_attempts where id = $2 and status = $3)`,
    [id, claim.attemptId, claim.status],
  );
  return r.rowCount > 0;
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
