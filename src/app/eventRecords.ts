// The provider's webhook events are recorded in batches (./batches.ts), one per
// inventory database: the events that arrive while a batch is out go together in
// the next statement. In an on-sale the provider sends one event per payment, each
// until now a round trip of its own on the pool the purchases need.
import type { Database } from '../db/client.js';
import { recordEvents, type PaymentClaim, type RecordedAs, type WebhookEventRow } from '../db/webhooks.js';
import { sqlState } from '../db/sqlstate.js';
import { Batches } from './batches.js';

/** Events recorded in one statement at most. */
const BATCH_MAX = 200;

type Item = { event: WebhookEventRow; claim: PaymentClaim | null };

/**
 * One batch's statement. An event PostgreSQL cannot store (a data exception, class 22:
 * say a NUL escaped in its payload) fails the statement for every event in it: then
 * each is recorded alone, so only that one is refused and the others are not sent
 * back to the provider's retries with it.
 */
async function recordBatch(db: Database, items: readonly Item[]): Promise<(RecordedAs | Error)[]> {
  try {
    return await recordEvents(db, items);
  } catch (err) {
    if (items.length === 1 || !sqlState(err)?.startsWith('22')) throw err;
    // One after another: a batch of 200 at once would take the pool from the purchases.
    const each: (RecordedAs | Error)[] = [];
    for (const item of items) {
      each.push(await recordEvents(db, [item]).then(([as]) => as!, (e: unknown) => (e instanceof Error ? e : new Error(String(e)))));
    }
    return each;
  }
}

export class EventRecords {
  private readonly byDatabase = new WeakMap<Database, Batches<Item, RecordedAs>>();
  /** Event ids being recorded now: a second delivery meanwhile is a duplicate. */
  private readonly recording = new Set<string>();

  /** How the event was recorded (src/db/webhooks.ts recordEvents). */
  async record(db: Database, event: WebhookEventRow, claim: PaymentClaim | null): Promise<RecordedAs> {
    if (this.recording.has(event.id)) return 'duplicate';
    let batches = this.byDatabase.get(db);
    if (!batches) this.byDatabase.set(db, (batches = new Batches((items) => recordBatch(db, items), BATCH_MAX)));
    this.recording.add(event.id);
    try {
      return await batches.call({ event, claim });
    } finally {
      this.recording.delete(event.id);
    }
  }
}
