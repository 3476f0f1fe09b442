// The waiting room's signed tokens: compact JWS, HS256 pinned, with keys derived
// from a secret that every instance shares (src/db/secrets.ts), so any instance
// verifies any other's tokens in process, with no database or network call.
import { hkdfSync } from 'node:crypto';
import { VerifiedCache } from '../auth/verifiedCache.js';
import { hs256, type Hs256 } from '../auth/hs256.js';

const ISSUER = 'boxoffice';
const QUEUE_AUDIENCE = 'boxoffice:queue';
const ADMISSION_AUDIENCE = 'boxoffice:admission';
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

/**
 * Each kind's own key, derived from the room's one stored secret (HKDF-SHA256, a
 * distinct info string per kind): a key that signs queue tokens cannot sign an
 * admission, and there is still only one secret to keep and share.
 */
export function roomTokenKeys(secret: string): { queue: Buffer; admission: Buffer } {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', secret, 'boxoffice waiting room', info, 32));
  return { queue: derive('boxoffice:queue token'), admission: derive('boxoffice:admission token') };
}

export class RoomTokens {
  private readonly queue: Hs256;
  private readonly admission: Hs256;
  // The purchase path checks an admission token on every hold and booking, and a
  // waiting buyer polls with the same queue token until admitted: each is verified
  // once, then found here.
  private readonly admissions = new VerifiedCache<AdmissionClaims>(100_000);
  private readonly queueTokens = new VerifiedCache<QueueClaims>(100_000);

  constructor(secret: string) {
    const keys = roomTokenKeys(secret);
    this.queue = hs256(keys.queue, ISSUER, QUEUE_AUDIENCE);
    // No iat: an admission asked for again is signed again from the same remembered
    // claims and comes out the same token.
    this.admission = hs256(keys.admission, ISSUER, ADMISSION_AUDIENCE, { timestamp: false });
  }

  issueQueue(c: QueueClaims): string {
    return this.queue.sign({ sub: c.userId, show: c.showId, entry: c.entryId, exp: Math.floor(Date.now() / 1000) + QUEUE_TOKEN_SECONDS });
  }

  /** The claims of a queue token, or null for a forged, expired or malformed one. */
  verifyQueue(token: string): QueueClaims | null {
    const hit = this.queueTokens.get(token);
    if (hit) return hit;
    const c = this.queue.verify(token);
    if (!c || typeof c.show !== 'string' || typeof c.entry !== 'string') return null;
    const claims = { userId: c.sub, showId: c.show, entryId: c.entry };
    this.queueTokens.set(token, claims, c.exp * 1000);
    return claims;
  }

  /** The admission token for these claims: the same claims give the same token. `expiresAtS`: seconds since the epoch. */
  issueAdmission(c: { userId: string; showId: string; position: number; expiresAtS: number }): { token: string; expiresAt: Date } {
    return { token: this.admission.sign({ sub: c.userId, show: c.showId, pos: c.position, exp: c.expiresAtS }), expiresAt: new Date(c.expiresAtS * 1000) };
  }

  /** The claims of an admission token, or null for a forged, expired or malformed one. */
  verifyAdmission(token: string): AdmissionClaims | null {
    const hit = this.admissions.get(token);
    if (hit) return hit;
    const c = this.admission.verify(token);
    if (!c || typeof c.show !== 'string' || typeof c.pos !== 'number') return null;
    const claims = { userId: c.sub, showId: c.show, position: c.pos, expiresAtMs: c.exp * 1000 };
    this.admissions.set(token, claims, claims.expiresAtMs);
    return claims;
  }
}
