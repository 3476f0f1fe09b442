// The waiting room's signed tokens: compact JWS, HS256 pinned, with a secret that
// every instance shares (src/db/secrets.ts), so any instance verifies any other's
// tokens in process, with no database or network call.
import { VerifiedCache } from '../auth/verifiedCache.js';
import { SignJWT, jwtVerify } from 'jose';

const ISSUER = 'boxoffice';
const QUEUE_AUDIENCE = 'boxoffice-queue';
const ADMISSION_AUDIENCE = 'boxoffice-admission';
/** A queue token only proves "this account joined this show's queue as this entry"; the place itself lives in the store. */
const QUEUE_TOKEN_SECONDS = 2 * 86_400;

export interface QueueClaims {
  userId: string;
  showId: string;
  /** The queue entry: random, so a pre-queue's order can be published without naming anyone. */
  entryId: string;
}

export interface AdmissionClaims {
  userId: string;
  showId: string;
  position: number;
  expiresAtMs: number;
}

export class RoomTokens {
  private readonly key: Promise<CryptoKey>;
  // The purchase path checks an admission token on every hold and booking.
  private readonly admissions = new VerifiedCache<AdmissionClaims>(100_000);

  constructor(secret: string) {
    this.key = crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  }

  async issueQueue(c: QueueClaims): Promise<string> {
    return new SignJWT({ show: c.showId, entry: c.entryId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(c.userId).setIssuer(ISSUER).setAudience(QUEUE_AUDIENCE)
      .setIssuedAt().setExpirationTime(`${QUEUE_TOKEN_SECONDS}s`)
      .sign(await this.key);
  }

  /** The claims of a queue token, or null for a forged, expired or malformed one. */
  async verifyQueue(token: string): Promise<QueueClaims | null> {
    try {
      const { payload } = await jwtVerify(token, await this.key, { issuer: ISSUER, audience: QUEUE_AUDIENCE, algorithms: ['HS256'] });
      const { sub, show, entry } = payload;
      if (typeof sub !== 'string' || typeof show !== 'string' || typeof entry !== 'string') return null;
      return { userId: sub, showId: show, entryId: entry };
    } catch {
      return null;
    }
  }

  async issueAdmission(c: { userId: string; showId: string; position: number; lifetimeSeconds: number }): Promise<{ token: string; expiresAt: Date }> {
    const exp = Math.floor(Date.now() / 1000) + c.lifetimeSeconds;
    const token = await new SignJWT({ show: c.showId, pos: c.position })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(c.userId).setIssuer(ISSUER).setAudience(ADMISSION_AUDIENCE)
      .setIssuedAt().setExpirationTime(exp)
      .sign(await this.key);
    return { token, expiresAt: new Date(exp * 1000) };
  }

  /** A verified admission token seen before and not expired, synchronously (the hot path), or undefined. */
  knownAdmission(token: string): AdmissionClaims | undefined {
    return this.admissions.get(token);
  }

  /** The claims of an admission token, or null for a forged, expired or malformed one. */
  async verifyAdmission(token: string): Promise<AdmissionClaims | null> {
    const hit = this.knownAdmission(token);
    if (hit) return hit;
    try {
      const { payload } = await jwtVerify(token, await this.key, { issuer: ISSUER, audience: ADMISSION_AUDIENCE, algorithms: ['HS256'] });
      const { sub, show, pos, exp } = payload;
      if (typeof sub !== 'string' || typeof show !== 'string' || typeof pos !== 'number' || typeof exp !== 'number') return null;
      const claims = { userId: sub, showId: show, position: pos, expiresAtMs: exp * 1000 };
      this.admissions.set(token, claims, claims.expiresAtMs);
      return claims;
    } catch {
      return null;
    }
  }
}
