// The provider's webhook events are recorded in batches (./batches.ts), one per
// inventory database: the events that arrive while a batch is out go together in
// the next statement. In an on-sale the provider sends one event per payment, each
// until now a round trip of its own on the pool the purchases need.
import type { Database } from '../db/client.js';
import { recordEvents, type PaymentClaim, type RecordedAs, type WebhookEventRow } from '../db/webhooks.js';
import { Batches } from './batches.js';

/** Events recorded in one statement at most. */
const BATCH_MAX = 200;

type Item = { event: WebhookEventRow; claim: PaymentClaim | null };

export class EventRecords {
  private readonly byDatabase = new WeakMap<Database, Batches<Item, RecordedAs>>();
  /** Event ids being recorded now: a second delivery meanwhile is a duplicate. */
  private readonly recording = new Set<string>();

  /** How the event was recorded (src/db/webhooks.ts recordEvents). */
  async record(db: Database, event: WebhookEventRow, claim: PaymentClaim | null): Promise<RecordedAs> {
    if (this.recording.has(event.id)) return 'duplicate';
    let batches = this.byDatabase.get(db);
    if (!batches) this.byDatabase.set(db, (batches = new Batches((items) => recordEvents(db, items), BATCH_MAX)));
    this.recording.add(event.id);
    try {
      return await batches.call({ event, claim });
    } finally {
      this.recording.delete(event.id);
    }
  }
}
