// Which payment methods a buyer may choose: the bundled simulator's test methods when
// the service pays through the simulator, none (card payment not offered) with real Stripe.
import { SIMULATOR_SECRET_KEY } from '../config.js';
import type { Context } from './context.js';

/**
 * The contract's test payment methods and what each does, for people (start output,
 * GET /v1/payments/methods, the API docs). The simulator (@boxoffice/paysim) decides
 * what each does; a test checks that it does what this says.
 */
export const TEST_PAYMENT_METHODS_FOR_PEOPLE: ReadonlyArray<readonly [string, string]> = [
  ['pm_card_visa', 'succeeds: the booking is confirmed'],
  ['pm_card_declined', 'declined: the booking fails, the hold stays until it expires'],
  ['pm_card_slow', 'succeeds after about 3 s'],
  ['pm_card_timeout_succeeds', 'charged, but the first answer is lost: pending, then confirmed'],
  ['pm_card_timeout_fails', 'declined, but the first answer is lost: pending, then failed'],
];

export interface PaymentMethods {
  /** True when payments go to the payment simulator (its test methods are the only ones). */
  test_mode: boolean;
  methods: { id: string; description: string }[];
}

export function paymentMethods(ctx: Pick<Context, 'config'>): PaymentMethods {
  const key = ctx.config.stripeSecretKey;
  const simulator = key === null || key === SIMULATOR_SECRET_KEY;
  return {
    test_mode: simulator,
    methods: simulator ? TEST_PAYMENT_METHODS_FOR_PEOPLE.map(([id, description]) => ({ id, description })) : [],
  };
}
