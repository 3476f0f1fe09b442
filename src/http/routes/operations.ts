import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Context } from '../../app/context.js';
import { sendProblem } from '../problem.js';
import { requireRole } from '../auth.js';
import { SCRAPE_REFUSED, scrapeAllowed } from '../metricsEndpoint.js';
import { IdParams, problemResponse, roleRefusals } from '../schemas.js';
import { showStats } from '../../app/showStats.js';
import { readiness } from '../../app/readiness.js';

export default async function operationRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  app.get('/healthz', {
    schema: {
      tags: ['operations'], summary: 'Liveness', description: 'Answers 200 while the process runs, whatever its databases do.',
      response: { 200: Type.Object({ status: Type.String() }, { description: 'The process runs', examples: [{ status: 'ok' }] }) },
    },
  },
    async () => ({ status: 'ok' }));

  app.get('/readyz', {
    schema: {
      tags: ['operations'], summary: 'Readiness: warmed up, and the database answers',
      description: 'For load balancers: 200 while the database (with SHARD_URLS: the control database) answers, else 503; 503 too while the instance warms up after its start (WARMUP_MS at most). With shards, `shards_down` names those that do not answer: only their shows are refused.',
      response: {
        200: Type.Object({
          status: Type.String(), database: Type.String({ description: '`postgres` or `pglite`' }),
          shards_down: Type.Optional(Type.Array(Type.String(), { description: 'With SHARD_URLS: the shards that did not answer within 1 s' })),
        }, { description: 'Ready to serve', examples: [{ status: 'ready', database: 'postgres' }, { status: 'ready', database: 'postgres', shards_down: ['b'] }] }),
        503: problemResponse('NOT_READY: the instance warms up after its start, the database does not answer, or this instance shuts down'),
      },
    },
  }, async (req, reply) => {
    const r = await readiness(ctx);
    if (r.ready) {
      if (ctx.inventory.single) return { status: 'ready', database: r.database };
      if (r.shardsDown.length) req.log.warn({ shards_down: r.shardsDown }, 'shards not answering: their shows answer 503 SHARD_UNAVAILABLE');
      return { status: 'ready', database: r.database, shards_down: r.shardsDown };
    }
    if (r.warmingUp) return sendProblem(reply, 'NOT_READY', 'warming up');
    req.log.warn({ err: r.why }, 'database not answering');
    return sendProblem(reply, 'NOT_READY', 'the database does not answer');
  });

  // With METRICS_PORT the metrics live on their own listener (metricsEndpoint.ts): here they are a 404.
  if (ctx.config.metricsPort === null) {
    app.get('/metrics', {
      onRequest: async (req, reply) => {
        if (!scrapeAllowed(ctx.config, req.headers.authorization)) return sendProblem(reply, 'UNAUTHENTICATED', SCRAPE_REFUSED);
      },
      schema: {
        tags: ['operations'], summary: 'Prometheus metrics (a bearer METRICS_TOKEN when the service has one)',
        description: 'Prometheus text exposition. With METRICS_TOKEN set it needs `Authorization: Bearer <METRICS_TOKEN>`; with METRICS_PORT it lives on its own listener instead (here a 404).',
        response: {
          200: { description: 'The metrics', content: { 'text/plain': { schema: { type: 'string' } } } },
          401: problemResponse('UNAUTHENTICATED: this service needs its METRICS_TOKEN as a bearer token'),
        },
      },
    }, async (_req, reply) => reply.type(ctx.metrics.registry.contentType).send(await ctx.metrics.registry.metrics()));
  }

  app.get<{ Params: IdParams }>('/v1/admin/shows/:id/stats', {
    onRequest: requireRole(ctx, 'admin'),
    schema: {
      tags: ['admin'], summary: "A show's seats, holds, bookings, refunds and double sales (must be 0)", security: [{ bearer: [] }], params: IdParams,
      description: '`double_sold` counts seats sold more than once: it must be 0.',
      response: {
        200: Type.Object({
          seats: Type.Object({ available: Type.Integer(), held: Type.Integer(), booked: Type.Integer() }),
          holds_created: Type.Integer(), hold_conflicts: Type.Integer(), bookings_confirmed: Type.Integer(), refunds: Type.Integer(),
          refunds_failed: Type.Integer({ description: 'Refunds the provider refused for good: money an operator has to look at' }),
          refunds_by_reason: Type.Object({
            cancellation: Type.Integer({ description: 'Bookings cancelled by their buyer' }),
            seats_lost: Type.Integer({ description: 'Payments that succeeded after their hold had expired and lost its seats: refunded automatically' }),
          }, { description: '`refunds` by cause' }),
          double_sold: Type.Integer(),
        }, { additionalProperties: true, description: "The show's counters", examples: [{ seats: { available: 98, held: 0, booked: 2 }, holds_created: 3, hold_conflicts: 1, bookings_confirmed: 1, refunds: 0, refunds_failed: 0, refunds_by_reason: { cancellation: 0, seats_lost: 0 }, double_sold: 0 }] }),
        ...roleRefusals('an admin'),
        404: problemResponse('NOT_FOUND: no such show'),
      },
    },
  }, async (req) => showStats(ctx, req.params.id));

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
