// The waiting-room gate of the purchase path: decided in process, before any
// database work, from the show's cached rules (src/app/showRules.ts) and a signed
// admission token. In the contract's order: 400 (more seats than the per-user
// limit) -> 403 SALE_NOT_OPEN / SALE_CLOSED -> 403 QUEUE_REQUIRED.
import { ERROR_STATUS, type Refusal } from '../domain/errors.js';
import { refusedBeforeSeats } from '../domain/holds.js';
import type { ShowRule } from '../domain/shows.js';
import type { AdmissionClaims, RoomTokens } from './tokens.js';

export const QUEUE_REQUIRED: Refusal = Object.freeze({
  code: 'QUEUE_REQUIRED', status: ERROR_STATUS.QUEUE_REQUIRED,
  message: 'this show sells through its waiting room: send the Admission-Token its queue gave you', extensions: {},
});

/**
 * The admission of this buyer, verified in process; null when missing, forged,
 * expired or someone else's. The expiry is checked here too, at `nowMs`, not left
 * to the verifier's memory of tokens it verified before.
 */
export function admissionOf(tokens: RoomTokens, header: string | string[] | undefined, userId: string, nowMs = Date.now()): AdmissionClaims | null {
  if (typeof header !== 'string' || header.length === 0 || header.length > 2048) return null;
  const claims = tokens.verifyAdmission(header);
  return claims && claims.userId === userId && claims.expiresAtMs > nowMs ? claims : null;
}

/** Why a hold of a waiting-room show is refused before the claim, or null to go on. */
export function holdGate(rule: ShowRule, nowMs: number, seatCount: number, admission: AdmissionClaims | null, showId: string): Refusal | null {
  const before = refusedBeforeSeats(rule, nowMs, seatCount);
  if (before) return before;
  if (!admission || admission.showId !== showId) return QUEUE_REQUIRED;
  return null;
}
