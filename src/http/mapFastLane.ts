// The hottest read of an on-sale, answered before the router: a show's map, a
// section of it or its section summary, when that answer is already built and in
// memory (the seat map cache) in the content coding the request asks for. The bytes
// and headers are the ones the route sends (routes/seats.ts through mapAnswer.ts);
// what is skipped is the router, the hooks, the schema validation and the reply
// machinery, which made a cached map answer cost clearly more CPU than a bare
// route sending the same bytes (bench:seatmap runs the two side by side).
//
// Anything else goes to Fastify as before: another method, any other query
// parameter or a value the route would refuse, a map not built yet or not
// compressed yet, an instance shutting down, an HTTP/1.1 request without Host, and
// every request while answered requests are logged (LOG_LEVEL info or lower: the
// request line is written by the router's logging, once, in one place).
import type { Context } from '../app/context.js';
import type { EncodedBody } from '../app/encodedBody.js';
import type { SeatMapAnswer } from '../app/seatMaps.js';
import { chooseCoding } from './contentCoding.js';
import { noneMatchHits } from './conditional.js';
import type { FastLane } from './httpServer.js';
import { NOSNIFF } from './securityHeaders.js';

/** /v1/shows/{id}/seats, /v1/shows/{id}/seats?section={name}, /v1/shows/{id}/sections: ids and names as the route's schemas allow. */
const MAP_URL = /^\/v1\/shows\/([A-Za-z0-9_-]{1,64})\/(?:seats(?:\?section=([A-Za-z0-9]{1,16}))?|(sections))$/;

export function mapFastLane(ctx: Context, closing: () => boolean): FastLane {
  const reads = ctx.metrics.seatMapReadTally;
  const fast = ctx.metrics.seatMapFastTally;
  const logsAnswers = () => ctx.log.isLevelEnabled('info');
  return (req, res) => {
    if (req.method !== 'GET' || closing() || logsAnswers()) return false;
    const m = MAP_URL.exec(req.url ?? '');
    if (!m) return false;
    if (req.httpVersion === '1.1' && req.headers.host === undefined) return false;
    const map: SeatMapAnswer | undefined = ctx.seatMaps.cached(m[1]!);
    if (!map) return false;
    const body: EncodedBody | null = m[3] ? map.sections() : m[2] === undefined ? map.map : map.section(m[2]);
    if (!body) return false;
    const chosen = body.in(chooseCoding(req.headers['accept-encoding']));
    if (noneMatchHits(req.headers['if-none-match'], body.tags)) {
      res.writeHead(304, { etag: chosen.etag, vary: 'Accept-Encoding', 'cache-control': 'public, max-age=1', ...NOSNIFF }).end();
      reads.not_modified++;
      fast.answers++;
      return true;
    }
    const bytes = chosen.ready;
    if (!bytes) return false;
    const headers: Record<string, string | number> = {
      etag: chosen.etag, vary: 'Accept-Encoding', 'cache-control': 'public, max-age=1',
      'content-type': 'application/json; charset=utf-8', 'content-length': bytes.length, ...NOSNIFF,
    };
    if (chosen.coding !== 'identity') headers['content-encoding'] = chosen.coding;
    res.writeHead(200, headers).end(bytes);
    reads.cache++;
    fast.answers++;
    return true;
  };
}
