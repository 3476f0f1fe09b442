import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EncodedBody } from '../../app/encodedBody.js';
import type { SeatMapAnswer } from '../../app/seatMaps.js';
import { notFound, validationFailed } from '../../domain/errors.js';
import type { Context } from '../../app/context.js';
import { IdParams, noBody, problemResponse, SeatMap, SeatMapQuery, SeatSections } from '../schemas.js';
import { mapAnswerHeaders, mapBodyHeaders, MapRequestHeaders, sendMapAnswer, type MapAnswerSent } from '../mapAnswer.js';

// The bodies are bytes already built and cached: skip the response serializer.
const sendBytes = () => (data: unknown) => (Buffer.isBuffer(data) ? (data as unknown as string) : JSON.stringify(data));
const notModified = { ...noBody('Not modified: the answer is still the one of If-None-Match'), headers: mapAnswerHeaders };
const compression = 'Honours Accept-Encoding (br, gzip; each compressed once per refresh, `Vary: Accept-Encoding`), ETag and If-None-Match (304).';

export default async function seatRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  const reads = ctx.metrics.seatMapReadTally;
  const count = (sent: MapAnswerSent, cached: boolean) => void reads[sent === 'not_modified' ? 'not_modified' : cached ? 'cache' : 'database']++;

  /**
   * Answers with `pick(map)`: at once when the map and the chosen bytes are built
   * (the hot path: no promise, nothing allocated but the reply), else when they are.
   */
  const serve = (req: FastifyRequest, reply: FastifyReply, showId: string, pick: (map: SeatMapAnswer) => EncodedBody): void | Promise<void> => {
    const { answer, cached, ready } = ctx.seatMaps.get(showId);
    const finish = (map: SeatMapAnswer | null): void | Promise<void> => {
      if (!map) throw notFound('show');
      const sent = sendMapAnswer(req, reply, pick(map));
      if (typeof sent === 'string') return void count(sent, cached);
      return sent.then((s) => void count(s, cached));
    };
    // Resolving to nothing once the reply is sent is how Fastify is told it was.
    return ready ? finish(ready) : answer.then(finish);
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
  }, (req, reply) => serve(req, reply, req.params.id, (map) => {
    const section = req.query.section;
    const body = section === undefined ? map.map : map.section(section);
    if (!body) throw validationFailed(`the hall has no section "${section}"`, [{ path: 'querystring:/section', message: 'no such section in this hall' }]);
    return body;
  }));

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
  }, (req, reply) => serve(req, reply, req.params.id, (map) => map.sections()));
}
