// The JSON shapes the simulator answers with: the subset of Stripe's
// PaymentIntent, Refund, Event and list objects that the service reads, with
// Stripe's field names and null where Stripe has a field we do not model.
import { newId, unixNow } from './ids.js';

/** Stripe pins each event's shape to an API version; this is the one the bundled SDK pins. */
export const API_VERSION = '2026-10-28.endive';

export type Metadata = Record<string, string>;

export type PaymentIntentStatus =
  | 'requires_payment_method' | 'requires_confirmation' | 'requires_action' | 'processing'
  | 'requires_capture' | 'canceled' | 'succeeded';

export interface PaymentError {
  type: 'card_error';
  code: string;
  decline_code?: string;
  message: string;
  charge?: string;
  doc_url: string;
  payment_method?: { id: string; object: 'payment_method'; type: 'card' };
}

export interface PaymentIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_capturable: number;
  amount_received: number;
  canceled_at: number | null;
  cancellation_reason: string | null;
  capture_method: 'automatic' | 'automatic_async';
  client_secret: string;
  confirmation_method: 'automatic' | 'manual';
  created: number;
  currency: string;
  customer: string | null;
  description: string | null;
  last_payment_error: PaymentError | null;
  latest_charge: string | null;
  livemode: false;
  metadata: Metadata;
  next_action: null;
  payment_method: string | null;
  payment_method_types: string[];
  receipt_email: string | null;
  status: PaymentIntentStatus;
}

export interface Refund {
  id: string;
  object: 'refund';
  amount: number;
  balance_transaction: string;
  charge: string | null;
  created: number;
  currency: string;
  metadata: Metadata;
  payment_intent: string;
  reason: string | null;
  receipt_number: null;
  status: 'succeeded';
}

export type EventType = 'payment_intent.succeeded' | 'payment_intent.payment_failed' | 'refund.created';

export interface StripeEvent {
  id: string;
  object: 'event';
  api_version: string;
  created: number;
  data: { object: PaymentIntent | Refund };
  livemode: false;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  type: EventType;
}

export interface ListObject<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  url: string;
}

export interface NewPaymentIntent {
  amount: number;
  currency: string;
  metadata: Metadata;
  description: string | null;
  paymentMethod: string | null;
  receiptEmail: string | null;
  captureMethod: 'automatic' | 'automatic_async';
}

export function paymentIntentObject(input: NewPaymentIntent): PaymentIntent {
  const id = newId('pi');
  return {
    id,
    object: 'payment_intent',
    amount: input.amount,
    amount_capturable: 0,
    amount_received: 0,
    canceled_at: null,
    cancellation_reason: null,
    capture_method: input.captureMethod,
    client_secret: `${id}_secret_${newId('s').slice(2)}`,
    confirmation_method: 'automatic',
    created: unixNow(),
    currency: input.currency,
    customer: null,
    description: input.description,
    last_payment_error: null,
    latest_charge: null,
    livemode: false,
    metadata: input.metadata,
    next_action: null,
    payment_method: input.paymentMethod,
    payment_method_types: ['card'],
    receipt_email: input.receiptEmail,
    status: input.paymentMethod ? 'requires_confirmation' : 'requires_payment_method',
  };
}

export function refundObject(pi: PaymentIntent, amount: number, metadata: Metadata, reason: string | null): Refund {
  return {
    id: newId('re'),
    object: 'refund',
    amount,
    balance_transaction: newId('txn'),
    charge: pi.latest_charge,
    created: unixNow(),
    currency: pi.currency,
    metadata,
    payment_intent: pi.id,
    reason,
    receipt_number: null,
    status: 'succeeded',
  };
}

/** A deep copy: answers, events and replays must not change when the record does later. */
export function snapshot<T>(value: T): T {
  return structuredClone(value);
}
