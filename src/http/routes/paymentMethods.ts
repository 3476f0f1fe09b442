// GET /v1/payments/methods: what the web app's checkout may offer (public, no seat database).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { paymentMethods } from '../../app/paymentMethods.js';
import type { Context } from '../../app/context.js';

const PaymentMethods = Type.Object({
  test_mode: Type.Boolean({ description: 'True when the service pays through the payment simulator; its test methods are then the only ones' }),
  methods: Type.Array(Type.Object({
    id: Type.String({ description: 'The `payment_method` value for `POST /v1/bookings`' }),
    description: Type.String({ description: 'What paying with it does' }),
  })),
});

export default async function paymentMethodRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  app.get('/v1/payments/methods', {
    schema: {
      tags: ['bookings'], summary: 'The payment methods a checkout may offer',
      description: 'With the payment simulator (no `STRIPE_SECRET_KEY`, or `sk_test_sim`): `test_mode: true` and its test methods with what each does. '
        + 'With real Stripe: `test_mode: false` and no methods (this build takes no card details).',
      response: {
        200: { ...PaymentMethods, description: 'The methods', examples: [{ test_mode: true, methods: [{ id: 'pm_card_visa', description: 'succeeds: the booking is confirmed' }] }] },
      },
    },
  }, async () => paymentMethods(ctx));
}
