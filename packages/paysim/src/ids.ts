// Stripe-style object ids ("pi_3Nq…", "re_…", "evt_…") and Unix-second clocks.
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A prefixed id with 24 base-62 characters, the length Stripe's ids have. */
export function newId(prefix: string): string {
  const bytes = randomBytes(24);
  let out = '';
  // 256 % 62 leaves a tiny bias; ids only need to be unique, not uniform.
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return `${prefix}_${out}`;
}

/** Seconds since the epoch, as every `created` field in Stripe's API. */
export function unixNow(): number {
  return Math.floor(Date.now() / 1000);
}

export function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
