import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { notFound } from '../../domain/errors.js';
import type { Context } from '../../app/context.js';
import { IdParams, noBody, problemResponse, SeatMap } from '../schemas.js';

const etag = { etag: { type: 'string', description: "The map's version; send it back as If-None-Match" } };

export default async function seatRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  app.get<{ Params: IdParams }>('/v1/shows/:id/seats', {
    schema: {
      tags: ['seats'], summary: 'The seat map (ETag, If-None-Match; up to 2 s stale)', params: IdParams,
      description: 'Every seat of the show with its status (`available`, `held` or `booked`), tier and price. `version` grows with every change '
        + 'to the show\'s seats, expiries included. The map may be up to 2 s stale; correctness comes from the hold.',
      headers: Type.Object({ 'if-none-match': Type.Optional(Type.String({ description: 'The ETag of a map you have: 304 while it is still current' })) }),
      response: {
        200: {
          ...SeatMap, description: 'The seat map', headers: etag,
          examples: [{ show_id: 'shw_01J9', version: 42, seats: [{ seat: 'F7', status: 'available', tier: 'standard', price: 25000, row: 'F', number: 7 }] }],
        },
        304: { ...noBody('Not modified: the map is still the one of If-None-Match'), headers: etag },
        404: problemResponse('NOT_FOUND: no such show'),
      },
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
