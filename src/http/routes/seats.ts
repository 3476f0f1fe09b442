import type { FastifyInstance, FastifyReply } from 'fastify';
import { notFound, validationFailed } from '../../domain/errors.js';
import type { Context } from '../../app/context.js';
import { IdParams, noBody, problemResponse, SeatMap, SeatMapQuery, SeatSections } from '../schemas.js';
import { mapAnswerHeaders, mapBodyHeaders, MapRequestHeaders, sendMapAnswer, type MapAnswerSent } from '../mapAnswer.js';

// The bodies are bytes already built and cached: skip the response serializer.
const sendBytes = () => (data: unknown) => (Buffer.isBuffer(data) ? (data as unknown as string) : JSON.stringify(data));
const notModified = { ...noBody('Not modified: the answer is still the one of If-None-Match'), headers: mapAnswerHeaders };
const compression = 'Honours Accept-Encoding (br, gzip; each compressed once per refresh, `Vary: Accept-Encoding`), ETag and If-None-Match (304).';

export default async function seatRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  const reads = { not_modified: ctx.metrics.seatMapReads.labels('not_modified'), cache: ctx.metrics.seatMapReads.labels('cache'), database: ctx.metrics.seatMapReads.labels('database') };
  const answered = (reply: FastifyReply, sent: MapAnswerSent, cached: boolean) => {
    reads[sent === 'not_modified' ? 'not_modified' : cached ? 'cache' : 'database'].inc();
    return reply;
  };

  app.get<{ Params: IdParams; Querystring: SeatMapQuery }>('/v1/shows/:id/seats', {
    schema: {
      tags: ['seats'], summary: 'The seat map, or one section of it (ETag, If-None-Match, gzip/br; up to 2 s stale)', params: IdParams,
      querystring: SeatMapQuery,
      description: 'Every seat of the show with its status (`available`, `held` or `booked`), tier and price. `version` grows with every change '
        + 'to the show\'s seats, expiries included. The map may be up to 2 s stale; correctness comes from the hold. '
        + 'With `?section=` only that section\'s seats (its `version` is the show\'s). ' + compression,
      headers: MapRequestHeaders,
      response: {
        200: {
          ...SeatMap, description: 'The seat map (or the section\'s part of it)', headers: mapBodyHeaders,
          examples: [{ show_id: 'shw_01J9', version: 42, seats: [{ seat: 'F7', status: 'available', tier: 'standard', price: 25000, row: 'F', number: 7 }] }],
        },
        304: notModified,
        400: problemResponse('VALIDATION_FAILED: an unknown section, or an unknown query parameter'),
        404: problemResponse('NOT_FOUND: no such show'),
      },
    },
    serializerCompiler: sendBytes,
  }, async (req, reply) => {
    const { answer, cached } = ctx.seatMaps.get(req.params.id);
    const map = await answer;
    if (!map) throw notFound('show');
    const section = req.query.section;
    const body = section === undefined ? map.map : map.section(section);
    if (!body) throw validationFailed(`the hall has no section "${section}"`, [{ path: 'querystring:/section', message: 'no such section in this hall' }]);
    return answered(reply, await sendMapAnswer(req, reply, body), cached);
  });

  app.get<{ Params: IdParams }>('/v1/shows/:id/sections', {
    schema: {
      tags: ['seats'], summary: 'Seat counts and prices per section (large halls; ETag, If-None-Match, gzip/br)', params: IdParams,
      description: 'For each section of the hall: how many seats are available, held and booked, and the lowest and highest price over all its '
        + 'seats. A hall without sections has `sections: []`. Made from the same cached read as the map, so as fresh as the map. ' + compression,
      headers: MapRequestHeaders,
      response: {
        200: {
          ...SeatSections, description: 'The section summary', headers: mapBodyHeaders,
          examples: [{ show_id: 'shw_01J9', version: 42, sections: [{ section: '101', available: 2400, held: 12, booked: 88, min_price: 9500, max_price: 9500 }] }],
        },
        304: notModified,
        404: problemResponse('NOT_FOUND: no such show'),
      },
    },
    serializerCompiler: sendBytes,
  }, async (req, reply) => {
    const { answer, cached } = ctx.seatMaps.get(req.params.id);
    const map = await answer;
    if (!map) throw notFound('show');
    return answered(reply, await sendMapAnswer(req, reply, map.sections()), cached);
  });
}
