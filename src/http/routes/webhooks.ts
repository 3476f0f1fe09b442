import type { FastifyInstance } from 'fastify';
import type { Context } from '../../app/context.js';
import { receiveProviderEvent } from '../../app/webhooks.js';
import { sendProblem } from '../problem.js';
import { Type } from '@sinclair/typebox';
import { problemResponse } from '../schemas.js';

export default async function webhookRoutes(app: FastifyInstance, { ctx: shared }: { ctx: Context }) {
  // The provider's deliveries are counted apart from the buyers' requests (src/db/trips.ts).
  const ctx: Context = { ...shared, db: shared.db.as('payment_webhooks'), inventory: shared.inventory.as('payment_webhooks') };
  // The signature covers the exact bytes: keep them (this plugin's scope only).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_req, body, done) => done(null, body));

  app.post('/v1/payments/webhook', {
    schema: {
      tags: ['bookings'], summary: 'Payment provider events (Stripe-Signature)', hide: false,
      description: 'For the payment provider. A webhook is a hint, never proof: the service records the signed event once, then reads the '
        + 'PaymentIntent or refund it names back from the provider and acts on what the provider says.',
      headers: Type.Object({ 'stripe-signature': Type.Optional(Type.String({ description: "The provider's signature of the exact body bytes (t=…,v1=…)" })) }),
      response: {
        200: Type.Object({
          received: Type.Boolean({ description: 'Always true: the event is recorded' }),
          duplicate: Type.Boolean({ description: 'The event was recorded before (a redelivery)' }),
        }, { description: 'The signed event is recorded', examples: [{ received: true, duplicate: false }] }),
        400: problemResponse('WEBHOOK_SIGNATURE_INVALID: Stripe-Signature missing, wrong, or its timestamp more than 5 minutes off; VALIDATION_FAILED: a signed body that is not an event'),
      },
    },
  }, async (req, reply) => {
    const signature = req.headers['stripe-signature'];
    let signed: string;
    try {
      if (typeof signature !== 'string' || !Buffer.isBuffer(req.body)) throw new Error('missing signature');
      signed = ctx.payments.verifyWebhook(req.body, signature);
    } catch {
      return sendProblem(reply, 'WEBHOOK_SIGNATURE_INVALID', 'the Stripe-Signature header is missing, does not verify, or its timestamp is more than 5 minutes off');
    }
    const fresh = await receiveProviderEvent(ctx, signed, req.log);
    return reply.code(200).send({ received: true, duplicate: !fresh });
  });
}
