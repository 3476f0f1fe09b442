// Small shared helpers for the HTTP tests (not a test file itself).
import { expect } from 'vitest';
import { SignJWT } from 'jose';
import type { Database } from '../../src/db/client.js';
import type { HttpAnswer } from '../support/http.js';

import { CONTRACT_CODES, describeAnswer, expectProblem } from '../support/problems.js';

export { CONTRACT_CODES, expectProblem };

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

/** A user token as the service signs them, with overridable claims and key (null: without that claim). */
export async function signUserToken(
  key: Uint8Array,
  o: { sub: string; role?: string; exp?: number | string; iat?: number; issuer?: string | null; audience?: string | null },
): Promise<string> {
  const jwt = new SignJWT({ role: o.role ?? 'user' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(o.sub)
    .setIssuedAt(o.iat ?? Math.floor(Date.now() / 1000))
    .setExpirationTime(o.exp ?? '1h');
  // null leaves the claim out.
  if (o.issuer !== null) jwt.setIssuer(o.issuer ?? 'boxoffice');
  if (o.audience !== null) jwt.setAudience(o.audience ?? 'boxoffice:user');
  return jwt.sign(key);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An ISO instant `ms` milliseconds from now (wall clock). */
export const fromNow = (ms: number) => new Date(Date.now() + ms).toISOString();
