// What the simulator's routes share: the books, the idempotency keys, chaos,
// held connections and the webhook sender. One per simulator instance.
import type { Chaos } from './chaos.js';
import type { HeldConnections } from './heldConnections.js';
import type { IdempotencyKeys } from './idempotency.js';
import type { Store } from './store.js';
import type { WebhookSender } from './webhooks.js';

export interface Timing {
  /** How long pm_card_slow takes before it succeeds. */
  slowMs: number;
  /** How long a lost-answer payment processes before its outcome is committed (a retry meanwhile gets 409). */
  commitDelayMs: number;
}

export interface SimContext {
  store: Store;
  chaos: Chaos;
  keys: IdempotencyKeys;
  held: HeldConnections;
  webhooks: WebhookSender;
  timing: Timing;
  apiKeys: ReadonlySet<string>;
}
