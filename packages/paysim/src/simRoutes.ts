// /_sim: the simulator's own control routes (plain JSON, no API key; it
// listens on loopback). Health with the books' counts, and chaos read/write.
import type { FastifyInstance } from 'fastify';
import { chaosProblems, type ChaosSettings } from './chaos.js';
import type { SimContext } from './context.js';

export default async function simRoutes(app: FastifyInstance, { ctx }: { ctx: SimContext }): Promise<void> {
  app.get('/_sim/health', async () => ({
    ok: true,
    payment_intents: ctx.store.paymentIntents.size,
    refunds: ctx.store.refunds.size,
    events: ctx.store.events.size,
    idempotency_keys: ctx.keys.size,
    held_connections: ctx.held.size,
    webhooks: ctx.webhooks.stats(),
    chaos: ctx.chaos.settings,
  }));

  app.get('/_sim/chaos', async () => ctx.chaos.settings);

  app.post('/_sim/chaos', async (request, reply) => {
    const body = request.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      return reply.code(400).send({ error: { type: 'invalid_request_error', message: 'send a JSON object of chaos settings' } });
    }
    const problems = chaosProblems(body as Record<string, unknown>);
    if (problems.length > 0) {
      return reply.code(400).send({ error: { type: 'invalid_request_error', message: problems.join('; ') } });
    }
    return ctx.chaos.update(body as Partial<ChaosSettings>);
  });
}
