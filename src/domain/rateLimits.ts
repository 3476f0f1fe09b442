// The abuse limits of the contract ("Abuse" in API.md) as plain data: which
// budgets exist, what each counts per key, and how a locked account's wait grows.
import { createHash } from 'node:crypto';
import type { Rate, RateLimitSettings } from '../config.js';

export type PolicyName =
  | 'sign_up_address'
  | 'sign_in_address'
  | 'sign_in_account_address'
  | 'purchase_account'
  | 'purchase_address'
  | 'queue_join_account'
  | 'queue_join_address';

export interface Policy extends Rate {
  name: PolicyName;
}

export type Policies = Readonly<Record<PolicyName, Policy>>;

export function policies(s: RateLimitSettings): Policies {
  const p = (name: PolicyName, r: Rate): Policy => ({ name, points: r.points, seconds: r.seconds });
  return Object.freeze({
    sign_up_address: p('sign_up_address', s.signUpPerAddress),
    sign_in_address: p('sign_in_address', s.signInPerAddress),
    sign_in_account_address: p('sign_in_account_address', s.signInPerAccountAddress),
    purchase_account: p('purchase_account', s.purchasePerAccount),
    purchase_address: p('purchase_address', s.purchasePerAddress),
    queue_join_account: p('queue_join_account', s.queueJoinPerAccount),
    queue_join_address: p('queue_join_address', s.queueJoinPerAddress),
  });
}

/** The verdict of one limiter: go on, or come back after this many whole seconds. */
export type Verdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export const ALLOWED: Verdict = Object.freeze({ allowed: true });

/** A wait in milliseconds as a Retry-After value: whole seconds, at least 1. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * How long one more failed sign-in locks an address out of an account, after
 * `failures` failures in a row from it (this one included): nothing for the free
 * ones, then the first lock, doubling with each further failure up to the maximum.
 */
export function lockSecondsAfter(failures: number, s: Pick<RateLimitSettings, 'signInFreeFailures' | 'signInLockSeconds' | 'signInLockMaxSeconds'>): number {
  const beyond = failures - s.signInFreeFailures;
  if (beyond <= 0) return 0;
  // 2^31 is far past any maximum; the cap keeps the exponent from overflowing.
  return Math.min(s.signInLockMaxSeconds, s.signInLockSeconds * 2 ** Math.min(beyond - 1, 31));
}

/**
 * The key of one client's failures on one account: failures lock that pair, never
 * the account itself, so guessing from elsewhere cannot lock its owner out.
 */
export function signInAttemptKey(account: string, address: string): string {
  return `${account}|${address}`;
}

/**
 * The account key of sign-in limits: the same for an email in any case (as
 * accounts are), and a digest, so that no email address is stored in Redis.
 */
export function accountOfEmail(email: string): string {
  return createHash('sha256').update(email.toLowerCase()).digest('base64url').slice(0, 32);
}
