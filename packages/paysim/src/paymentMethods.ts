// The test payment methods the simulated bank understands, in the style of
// Stripe's test PaymentMethods: each names an outcome, a processing time, and
// whether the first answer is lost on the way back (the charge still happens).
export interface TestPaymentMethod {
  outcome: 'succeeded' | 'declined';
  /** How the bank answers a decline: Stripe's card_error code and decline_code. */
  decline?: { code: string; decline_code: string; message: string };
  /** Processing before the outcome is committed: 'slow' for pm_card_slow, 'commit' for the lost-answer ones. */
  processing: 'none' | 'slow' | 'commit';
  /** The outcome is committed, but the connection that asked never gets an answer. */
  losesFirstAnswer: boolean;
}

const GENERIC_DECLINE = { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' };

const succeeds: TestPaymentMethod = { outcome: 'succeeded', processing: 'none', losesFirstAnswer: false };
const declined: TestPaymentMethod = { outcome: 'declined', decline: GENERIC_DECLINE, processing: 'none', losesFirstAnswer: false };

export const TEST_PAYMENT_METHODS: ReadonlyMap<string, TestPaymentMethod> = new Map<string, TestPaymentMethod>([
  // The project's contract (API.md "Bookings and payment").
  ['pm_card_visa', succeeds],
  ['pm_card_declined', declined],
  ['pm_card_slow', { ...succeeds, processing: 'slow' }],
  ['pm_card_timeout_succeeds', { ...succeeds, processing: 'commit', losesFirstAnswer: true }],
  ['pm_card_timeout_fails', { ...declined, processing: 'commit', losesFirstAnswer: true }],
  // A few of Stripe's own test PaymentMethods, so code written against real Stripe's test mode works here too.
  ['pm_card_mastercard', succeeds],
  ['pm_card_amex', succeeds],
  ['pm_card_visa_debit', succeeds],
  ['pm_card_chargeDeclined', declined],
  ['pm_card_visa_chargeDeclined', declined],
  ['pm_card_chargeDeclinedInsufficientFunds', {
    ...declined,
    decline: { code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  }],
]);
