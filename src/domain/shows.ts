// Rules for a show's settings. Pure.
import { validationFailed, type FieldError } from './errors.js';

/** What the purchase path and the waiting room read of a show on every request (app/showRules.ts keeps a copy). */
export interface ShowRule {
  waitingRoom: boolean;
  saleOpensAtMs: number;
  startsAtMs: number;
  perUserLimit: number;
  holdTtlSeconds: number;
  /** The show was cancelled: nothing more is sold, nobody joins its queue. */
  cancelled?: boolean;
}

export const SHOW_DEFAULTS = {
  hold_ttl_seconds: 600,
  per_user_limit: 10,
  cancel_until_minutes_before: 120,
  waiting_room: false,
  expected_demand: 0,
} as const;

/** Every tier the hall uses needs a price; starts_at must not be before sale_opens_at. */
export function checkShowSettings(s: { starts_at: string; sale_opens_at: string | null; price_tiers: Record<string, number> }, hallTiers: Iterable<string>): void {
  const errors: FieldError[] = [];
  for (const tier of hallTiers) {
    if (!(tier in s.price_tiers)) errors.push({ path: `/price_tiers/${tier}`, message: `the hall uses tier "${tier}", which needs a price` });
  }
  if (s.sale_opens_at !== null && Date.parse(s.sale_opens_at) > Date.parse(s.starts_at)) {
    errors.push({ path: '/sale_opens_at', message: 'the sale must open before the show starts' });
  }
  if (errors.length) throw validationFailed('the show settings are not valid', errors);
}
