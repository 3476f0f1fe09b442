// Ticket codes: compact JWS (EdDSA, Ed25519) that gates verify offline against
// /v1/tickets/jwks.json. The key comes from TICKET_SIGNING_JWK, or is made on the
// first start and kept in the database so every instance signs with it. The `kid`
// lets a new key be introduced while codes signed with the old one still verify.
import { calculateJwkThumbprint, createLocalJWKSet, exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK } from 'jose';
import type { Queryable } from '../db/client.js';
import { fillEmptySecret, sharedSecret } from '../db/secrets.js';

export interface TicketClaims {
  ticketId: string;
  showId: string;
  seat: string;
}

const ISSUER = 'boxoffice-tickets';

export class TicketSigner {
  private constructor(
    private readonly key: CryptoKey | Uint8Array,
    private readonly kid: string,
    private readonly publicJwks: { keys: JWK[] },
  ) {}

  static async load(db: Queryable, configured: string | null): Promise<TicketSigner> {
    const json = configured ?? (await sharedSecret(db, 'ticket_signing_jwk', () => '')) ?? '';
    let privateJwk: JWK;
    if (json) privateJwk = JSON.parse(json) as JWK;
    else {
      const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
      const made = await exportJWK(privateKey);
      await fillEmptySecret(db, 'ticket_signing_jwk', JSON.stringify(made));
      // Another instance may have won the race: use whatever is stored now.
      return TicketSigner.load(db, null);
    }
    const { d: _private, ...publicJwk } = privateJwk;
    const kid = privateJwk.kid ?? (await calculateJwkThumbprint(publicJwk));
    const key = await importJWK({ ...privateJwk, alg: 'EdDSA' }, 'EdDSA');
    return new TicketSigner(key, kid, { keys: [{ ...publicJwk, kid, alg: 'EdDSA', use: 'sig' }] });
  }

  sign(c: TicketClaims): Promise<string> {
    return new SignJWT({ show: c.showId, seat: c.seat })
      .setProtectedHeader({ alg: 'EdDSA', kid: this.kid })
      .setIssuer(ISSUER)
      .setSubject(c.ticketId)
      .setIssuedAt()
      .sign(this.key);
  }

  /** The claims of a code signed by one of our keys, or null. */
  async verify(code: string): Promise<TicketClaims | null> {
    try {
      const { payload } = await jwtVerify(code, createLocalJWKSet(this.publicJwks), { issuer: ISSUER, algorithms: ['EdDSA'] });
      if (typeof payload.sub !== 'string' || typeof payload.show !== 'string' || typeof payload.seat !== 'string') return null;
      return { ticketId: payload.sub, showId: payload.show, seat: payload.seat };
    } catch {
      return null;
    }
  }

  jwks(): { keys: JWK[] } {
    return this.publicJwks;
  }
}
