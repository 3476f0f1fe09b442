import type { FastifyInstance } from 'fastify';
import { notFound } from '../../domain/errors.js';
import type { Context } from '../../app/context.js';
import { IdParams, Problem, SeatMap } from '../schemas.js';

export default async function seatRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  app.get<{ Params: IdParams }>('/v1/shows/:id/seats', {
    schema: {
      tags: ['seats'], summary: 'The seat map (ETag, If-None-Match; up to 2 s stale)', params: IdParams,
      response: { 200: SeatMap, 404: Problem },
    },
    // The body is bytes already built and cached: skip the response serializer.
    serializerCompiler: () => (data) => (Buffer.isBuffer(data) ? (data as unknown as string) : JSON.stringify(data)),
  }, async (req, reply) => {
    const { answer, cached } = ctx.seatMaps.get(req.params.id);
    const map = await answer;
    if (!map) throw notFound('show');
    reply.header('etag', map.etag).header('cache-control', 'public, max-age=1');
    if (req.headers['if-none-match'] === map.etag) {
      ctx.metrics.seatMapReads.inc({ source: 'not_modified' });
      return reply.code(304).send();
    }
    ctx.metrics.seatMapReads.inc({ source: cached ? 'cache' : 'database' });
    return reply.type('application/json; charset=utf-8').send(map.body);
  });
}
