import type { FastifyInstance } from 'fastify';
import { notFound } from '../../domain/errors.js';
import * as holds from '../../app/holds.js';
import type { Context } from '../../app/context.js';
import { requireUser } from '../auth.js';
import { limitPurchases } from '../client.js';
import { limitInFlight } from '../purchaseLimit.js';
import { sendProblem } from '../problem.js';
import { Hold, HoldInput, IdParams, Problem } from '../schemas.js';

export default async function holdRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  const user = { onRequest: requireUser(ctx) };
  const buyer = { onRequest: [requireUser(ctx), limitPurchases(ctx)] };
  const holdBuyer = { onRequest: [requireUser(ctx), limitPurchases(ctx), limitInFlight(ctx, 'hold')] };
  const security = [{ bearer: [] }];

  app.post<{ Params: IdParams; Body: HoldInput }>('/v1/shows/:id/holds', {
    ...holdBuyer,
    // The contract answers an unknown show (404) before a bad body (400), even one
    // that does not parse: so the show is looked up before the body is read.
    preParsing: async (req, _reply, payload) => {
      const showId = (req.params as IdParams).id;
      if (!ctx.halls.known(showId) && !(await ctx.halls.forShow(showId))) throw notFound('show');
      return payload;
    },
    schema: {
      tags: ['holds'], summary: 'Hold seats: all of them or none', security, params: IdParams, body: HoldInput,
      response: { 201: Hold, 400: Problem, 403: Problem, 404: Problem, 409: Problem, 429: Problem },
    },
  }, async (req, reply) => {
    const result = await holds.holdSeats(ctx, req.principal!, req.params.id, req.body.seats, req.headers['admission-token']);
    if ('refused' in result) return sendProblem(reply, result.refused.code, result.refused.message, result.refused.extensions);
    return reply.code(201).send(result.hold);
  });

  app.get<{ Params: IdParams }>('/v1/holds/:id', {
    ...user,
    schema: { tags: ['holds'], summary: 'A hold of yours', security, params: IdParams, response: { 200: Hold, 404: Problem } },
  }, async (req) => holds.getHold(ctx, req.principal!, req.params.id));

  app.delete<{ Params: IdParams }>('/v1/holds/:id', {
    ...buyer,
    schema: { tags: ['holds'], summary: 'Release a hold of yours', security, params: IdParams, response: { 404: Problem, 409: Problem, 429: Problem } },
  }, async (req, reply) => {
    await holds.releaseHold(ctx, req.principal!, req.params.id);
    return reply.code(204).send();
  });
}
