import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Context } from '../../app/context.js';
import { sendProblem } from '../problem.js';
import { requireRole } from '../auth.js';
import { SCRAPE_REFUSED, scrapeAllowed } from '../metricsEndpoint.js';
import { IdParams } from '../schemas.js';
import { showStats } from '../../app/showStats.js';

export default async function operationRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  app.get('/healthz', { schema: { tags: ['operations'], summary: 'Liveness', response: { 200: Type.Object({ status: Type.String() }) } } },
    async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { tags: ['operations'], summary: 'Readiness: the database answers' } }, async (req, reply) => {
    try {
      await ctx.db.query('select 1');
      return { status: 'ready', database: ctx.db.kind };
    } catch (err) {
      req.log.warn({ err }, 'database not answering');
      return sendProblem(reply, 'NOT_READY', 'the database does not answer');
    }
  });

  // With METRICS_PORT the metrics live on their own listener (metricsEndpoint.ts): here they are a 404.
  if (ctx.config.metricsPort === null) {
    app.get('/metrics', {
      onRequest: async (req, reply) => {
        if (!scrapeAllowed(ctx.config, req.headers.authorization)) return sendProblem(reply, 'UNAUTHENTICATED', SCRAPE_REFUSED);
      },
      schema: { tags: ['operations'], summary: 'Prometheus metrics (a bearer METRICS_TOKEN when the service has one)' },
    }, async (_req, reply) => reply.type(ctx.metrics.registry.contentType).send(await ctx.metrics.registry.metrics()));
  }

  app.get<{ Params: IdParams }>('/v1/admin/shows/:id/stats', {
    onRequest: requireRole(ctx, 'admin'),
    schema: { tags: ['admin'], summary: "A show's seats, holds, bookings, refunds and double sales (must be 0)", security: [{ bearer: [] }], params: IdParams },
  }, async (req) => showStats(ctx, req.params.id));

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
