// Stripe's webhook signature: `Stripe-Signature: t=<unix seconds>,v1=<hex
// HMAC-SHA256 of "<t>.<raw body>" keyed with the endpoint's signing secret>`,
// which the SDK's stripe.webhooks.constructEvent verifies.
import { createHmac } from 'node:crypto';
import { unixNow } from './ids.js';

export function signatureHeader(payload: string, secret: string, timestamp: number = unixNow()): string {
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex');
  return `t=${timestamp},v1=${v1}`;
}
