// Small shared helpers for the HTTP tests (not a test file itself).
import { expect } from 'vitest';
import { SignJWT } from 'jose';
import type { Database } from '../../src/db/client.js';
import type { HttpAnswer } from '../support/http.js';

/** The contract's closed set of error codes (API.md). */
export const CONTRACT_CODES = new Set([
  'VALIDATION_FAILED', 'UNAUTHENTICATED', 'INVALID_CREDENTIALS', 'FORBIDDEN', 'SALE_NOT_OPEN', 'SALE_CLOSED',
  'QUEUE_REQUIRED', 'NOT_FOUND', 'EMAIL_TAKEN', 'SEAT_UNAVAILABLE', 'LIMIT_EXCEEDED', 'HOLD_PAYING', 'OVERLOADED',
  'NOT_READY', 'HOLD_EXPIRED', 'IDEMPOTENCY_KEY_MISSING', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_FLIGHT',
  'CANCELLATION_WINDOW_CLOSED', 'NOT_CANCELLABLE', 'WEBHOOK_SIGNATURE_INVALID', 'ALREADY_CHECKED_IN', 'TICKET_VOID',
  'TICKET_INVALID', 'NOT_YET_ADMITTED', 'TOKEN_INVALID',
]);

function describeAnswer(r: HttpAnswer): string {
  return `${r.status} ${String(r.headers['content-type'])} ${r.text.slice(0, 400)}`;
}

/** An RFC 9457 problem with the given HTTP status and contract code. */
export function expectProblem(r: HttpAnswer, status: number, code: string): void {
  expect(r.status, describeAnswer(r)).toBe(status);
  expect(String(r.headers['content-type']), describeAnswer(r)).toMatch(/^application\/problem\+json/);
  expect(r.body, describeAnswer(r)).toMatchObject({ status, code });
  expect(CONTRACT_CODES.has(r.body.code), `code ${r.body.code} is not in the contract`).toBe(true);
  for (const field of ['type', 'title', 'detail'] as const) {
    expect(typeof r.body[field], `${field} of ${describeAnswer(r)}`).toBe('string');
    expect((r.body[field] as string).length, `${field} of ${describeAnswer(r)}`).toBeGreaterThan(0);
  }
}

/** A problem matching one of the acceptable (status, code) pairs. */
export function expectOneOfProblems(r: HttpAnswer, allowed: readonly (readonly [number, string])[]): void {
  const match = allowed.find(([s, c]) => r.status === s && r.body?.code === c);
  expect(match, `expected one of ${JSON.stringify(allowed)}, got ${describeAnswer(r)}`).toBeDefined();
  expectProblem(r, match![0], match![1]);
}

/** The instance's HS256 secret of user tokens, as stored in its database. */
export async function tokenSecret(db: Database): Promise<Uint8Array> {
  const r = await db.query<{ value: string }>("select value from secrets where name = 'user_token_hs256'");
  return new TextEncoder().encode(r.rows[0]!.value);
}

/** A user token as the service signs them, with overridable claims and key. */
export async function signUserToken(
  key: Uint8Array,
  o: { sub: string; role?: string; exp?: number | string; iat?: number; issuer?: string; audience?: string },
): Promise<string> {
  const jwt = new SignJWT({ role: o.role ?? 'user' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(o.sub)
    .setIssuer(o.issuer ?? 'boxoffice')
    .setAudience(o.audience ?? 'boxoffice-api')
    .setIssuedAt(o.iat ?? Math.floor(Date.now() / 1000))
    .setExpirationTime(o.exp ?? '1h');
  return jwt.sign(key);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An ISO instant `ms` milliseconds from now (wall clock). */
export const fromNow = (ms: number) => new Date(Date.now() + ms).toISOString();
