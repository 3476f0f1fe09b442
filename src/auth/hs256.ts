// Compact JWS with HS256 pinned, for the tokens checked on every request (bearer,
// queue and admission tokens), through fast-jwt: it signs and verifies with
// node:crypto in the calling turn. jose (kept for the tickets' EdDSA signatures) goes
// through WebCrypto, whose per-call cost was a quarter of the time the service's main
// thread was busy in bench:overload (c). Tokens are the same bytes either way.
import { createSigner, createVerifier } from 'fast-jwt';

export interface Hs256Claims {
  sub: string;
  exp: number;
  [claim: string]: unknown;
}

export interface Hs256 {
  /** A token for these claims: `exp` in seconds since the epoch, `iat` now. */
  sign(claims: Hs256Claims): string;
  /** The claims of a token signed with the secret for this audience and not expired, or null. */
  verify(token: string): Hs256Claims | null;
}

export function hs256(secret: string, issuer: string, audience: string): Hs256 {
  const sign = createSigner({ key: secret, algorithm: 'HS256', iss: issuer, aud: audience });
  const verify = createVerifier({ key: secret, algorithms: ['HS256'], allowedIss: issuer, allowedAud: audience, requiredClaims: ['sub', 'exp'] });
  return {
    sign: (claims) => sign(claims),
    verify(token) {
      try {
        const payload = verify(token) as Record<string, unknown>;
        return typeof payload.sub === 'string' && typeof payload.exp === 'number' ? (payload as Hs256Claims) : null;
      } catch {
        return null;
      }
    },
  };
}
