// Signed bearer tokens (JWT, HS256) for signed-in users.
import { VerifiedCache } from './verifiedCache.js';
import { SignJWT, jwtVerify } from 'jose';

export type Role = 'user' | 'staff' | 'admin';
export const ROLES: readonly Role[] = ['user', 'staff', 'admin'];

export interface Principal {
  userId: string;
  role: Role;
}

const ISSUER = 'boxoffice';
const AUDIENCE = 'boxoffice-api';

export class UserTokens {
  // Imported once: jose would otherwise import the raw secret on every verify.
  private readonly key: Promise<CryptoKey>;
  constructor(secret: string, private readonly ttlSeconds: number) {
    this.key = crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  }

  async issue(p: Principal): Promise<string> {
    return new SignJWT({ role: p.role })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(p.userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${this.ttlSeconds}s`)
      .sign(await this.key);
  }

  private readonly verified = new VerifiedCache<Principal>(50_000);

  /** The principal of a token verified before and not yet expired, or null. */
  cached(token: string): Principal | null {
    return this.verified.get(token) ?? null;
  }

  /** The principal, or null for a forged, expired or malformed token. */
  async verify(token: string): Promise<Principal | null> {
    const hit = this.cached(token);
    if (hit) return hit;
    try {
      const { payload } = await jwtVerify(token, await this.key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
      const role = payload.role;
      if (typeof payload.sub !== 'string' || !ROLES.includes(role as Role) || typeof payload.exp !== 'number') return null;
      const principal = { userId: payload.sub, role: role as Role };
      this.verified.set(token, principal, payload.exp * 1000);
      return principal;
    } catch {
      return null;
    }
  }
}
