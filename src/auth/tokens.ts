// Signed bearer tokens (JWT, HS256) for signed-in users.
import { VerifiedCache } from './verifiedCache.js';
import { hs256, type Hs256 } from './hs256.js';

export type Role = 'user' | 'staff' | 'admin';
export const ROLES: readonly Role[] = ['user', 'staff', 'admin'];

export interface Principal {
  userId: string;
  role: Role;
}

const ISSUER = 'boxoffice';
const AUDIENCE = 'boxoffice:user';

export class UserTokens {
  private readonly jws: Hs256;
  constructor(secret: string, private readonly ttlSeconds: number) {
    this.jws = hs256(secret, ISSUER, AUDIENCE);
  }

  issue(p: Principal): string {
    return this.jws.sign({ sub: p.userId, role: p.role, exp: Math.floor(Date.now() / 1000) + this.ttlSeconds });
  }

  private readonly verified = new VerifiedCache<Principal>(50_000);

  /** The principal, or null for a forged, expired or malformed token; each token is verified once, then found in memory. */
  verify(token: string): Principal | null {
    const hit = this.verified.get(token);
    if (hit) return hit;
    const claims = this.jws.verify(token);
    if (!claims || !ROLES.includes(claims.role as Role)) return null;
    const principal = { userId: claims.sub, role: claims.role as Role };
    this.verified.set(token, principal, claims.exp * 1000);
    return principal;
  }
}
