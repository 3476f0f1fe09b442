// Compact JWS with HS256 pinned, for the tokens checked on every request (bearer,
// queue and admission tokens), through fast-jwt: it signs and verifies with
// node:crypto in the calling turn. jose (kept for the tickets' EdDSA signatures) goes
// through WebCrypto, which costs more per call: with a token checked on every request,
// it took a large share of the main thread under load. Tokens are the same bytes either way.
import { createSigner, createVerifier } from 'fast-jwt';

export interface Hs256Claims {
  sub: string;
  exp: number;
  [claim: string]: unknown;
}

export interface Hs256 {
  /** A token for these claims: `exp` in seconds since the epoch; `iat` now unless the kind signs without it. */
  sign(claims: Hs256Claims): string;
  /** The claims of a token signed with the key, naming this issuer and audience, and not expired, or null. */
  verify(token: string): Hs256Claims | null;
}

/**
 * One token kind: its key, issuer and audience. `timestamp: false` signs without
 * `iat`, so the same claims always give the same token (HS256 is deterministic).
 */
export function hs256(key: string | Buffer, issuer: string, audience: string, o: { timestamp?: boolean } = {}): Hs256 {
  const sign = createSigner({ key, algorithm: 'HS256', iss: issuer, aud: audience, noTimestamp: o.timestamp === false });
  // fast-jwt checks iss and aud only when present: without requiring them, a token
  // that names no audience would pass as every kind signed with the same key.
  const verify = createVerifier({ key, algorithms: ['HS256'], allowedIss: issuer, allowedAud: audience, requiredClaims: ['sub', 'exp', 'iss', 'aud'] });
  return {
    sign: (claims) => sign(claims),
    verify(token) {
      try {
        const payload = verify(token) as Record<string, unknown>;
        // Exactly this audience: a list naming several kinds (which fast-jwt lets through if one matches) is no kind.
        if (payload.aud !== audience || payload.iss !== issuer) return null;
        return typeof payload.sub === 'string' && typeof payload.exp === 'number' ? (payload as Hs256Claims) : null;
      } catch {
        return null;
      }
    },
  };
}
