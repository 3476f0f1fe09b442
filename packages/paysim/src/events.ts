// Every change worth telling the service about becomes an Event: kept in the
// event log (GET /v1/events) and handed to the webhook sender.
import { newId, unixNow } from './ids.js';
import { API_VERSION, snapshot, type EventType, type PaymentIntent, type Refund, type StripeEvent } from './objects.js';
import type { Store } from './store.js';
import type { WebhookSender } from './webhooks.js';

/** The API request that caused an event, as Stripe records it on the event. */
export interface RequestRef {
  requestId: string;
  idempotencyKey: string | null;
}

export function recordEvent(
  store: Store,
  webhooks: WebhookSender,
  type: EventType,
  object: PaymentIntent | Refund,
  request: RequestRef,
): StripeEvent {
  const event: StripeEvent = {
    id: newId('evt'),
    object: 'event',
    api_version: API_VERSION,
    created: unixNow(),
    // A snapshot: the event tells what the object was when it happened.
    data: { object: snapshot(object) },
    livemode: false,
    pending_webhooks: webhooks.url === null ? 0 : 1,
    request: { id: request.requestId, idempotency_key: request.idempotencyKey },
    type,
  };
  store.addEvent(event);
  webhooks.enqueue(event);
  return event;
}
