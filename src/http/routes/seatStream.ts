import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { Context } from '../../app/context.js';
import { IdParams, problemResponse } from '../schemas.js';
import { sendStream } from '../../live/eventStream.js';
import { acceptsGzip } from '../contentCoding.js';
import { clientOf } from '../rateLimitHooks.js';
import { DomainError } from '../../domain/errors.js';

const StreamQuery = Type.Object({
  section: Type.Optional(Type.String({ minLength: 1, maxLength: 16, description: 'Only deltas that change this section of the hall (ids stay the show\'s versions, so they may jump)' })),
});
const StreamHeaders = Type.Object({
  'last-event-id': Type.Optional(Type.String({ description: 'The id of the last event received: the stream resumes with the deltas after it, or a fresh snapshot when they are no longer kept' })),
});

const DESCRIPTION = [
  'Server-Sent Events. The stream starts with `retry: <ms>`, then `event: snapshot` whose data is the seat map (as `GET /v1/shows/{id}/seats`, '
    + 'only the section\'s seats with `?section=`) and whose `id` is its version; then `event: delta` with data `{version, changes: [{seat, status}]}` '
    + 'and `id: <version>`, one per published change of the show (versions consecutive without `?section=`), a few times a second.',
  'With `Accept-Encoding: gzip` the stream is gzip (`Content-Encoding: gzip`), flushed after every event. A comment line (`: heartbeat`) comes at least every 15 s. Reconnect with `Last-Event-ID` to get the deltas missed, or a fresh snapshot when they are no longer kept. '
    + 'A viewer that does not read fast enough is disconnected and may resume the same way.',
  'Bounded: at most `STREAM_MAX_PER_ADDRESS` open streams per client address, and a total per instance; beyond either, 503 `OVERLOADED` with `Retry-After` (and the connection closed).',
].join('\n\n');

export default async function seatStreamRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  app.get<{ Params: IdParams; Querystring: Static<typeof StreamQuery>; Headers: Static<typeof StreamHeaders> }>('/v1/shows/:id/seats/stream', {
    schema: {
      tags: ['seats'], summary: 'The seat map, live (Server-Sent Events: a snapshot, then deltas)', description: DESCRIPTION,
      params: IdParams, querystring: StreamQuery, headers: StreamHeaders,
      response: {
        200: {
          description: 'An event stream: snapshot, then deltas and heartbeats',
          content: { 'text/event-stream': { schema: { type: 'string', example: 'retry: 2000\n\nid: 42\nevent: snapshot\ndata: {"show_id":"shw_01J9","version":42,"seats":[…]}\n\nid: 43\nevent: delta\ndata: {"version":43,"changes":[{"seat":"F7","status":"held"}]}\n\n' } } },
        },
        400: problemResponse('VALIDATION_FAILED: the hall has no such section, or an unknown query parameter'),
        404: problemResponse('NOT_FOUND: no such show'),
        503: problemResponse('OVERLOADED: this instance has its maximum of viewers, or the client address its maximum of open streams (STREAM_MAX_PER_ADDRESS); retry after Retry-After, maybe on another instance. NOT_READY while it shuts down'),
      },
    },
  }, async (req, reply) => {
    let stream;
    try {
      stream = await ctx.seatStreams.open({ showId: req.params.id, section: req.query.section, lastEventId: req.headers['last-event-id'], client: clientOf(ctx, req) });
    } catch (err) {
      // A refused client's kept-alive connection would go on holding a descriptor
      // past the bound: it closes with the answer.
      if (err instanceof DomainError && err.code === 'OVERLOADED') void reply.header('connection', 'close');
      throw err;
    }
    reply.hijack();
    try {
      await sendStream(stream, reply.raw, ctx.config.liveMap, acceptsGzip(req.headers['accept-encoding']));
    } catch (err) {
      req.log.warn({ err, show_id: req.params.id }, 'seat map stream failed to start');
    }
  });
}
