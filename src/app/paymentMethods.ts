// Which payment methods a buyer may choose: the bundled simulator's test methods when
// the service pays through the simulator, none (card payment not offered) with real Stripe.
import { SIMULATOR_SECRET_KEY } from '../config.js';
import { TEST_PAYMENT_METHODS_FOR_PEOPLE } from '../payments/simulator/paymentMethods.js';
import type { Context } from './context.js';

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
