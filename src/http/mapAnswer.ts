// Sends a cached map answer (the map, a section of it, the section summary): the
// representation the request's Accept-Encoding asks for, ETag and If-None-Match,
// `Vary: Accept-Encoding`. Bodies are bytes built once per cache refresh; nothing
// here serializes or compresses per request.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { EncodedBody } from '../app/encodedBody.js';
import { chooseCoding } from './contentCoding.js';
import { noneMatchHits } from './conditional.js';

/** Response headers of a map answer, for the route schemas (and so the OpenAPI document). */
export const mapAnswerHeaders = {
  etag: { type: 'string', description: 'This representation\'s tag; send it back as If-None-Match (each content coding has its own)' },
  vary: { type: 'string', description: 'Accept-Encoding: the body depends on it' },
  'cache-control': { type: 'string', description: 'public, max-age=1' },
} as const;
export const mapBodyHeaders = {
  ...mapAnswerHeaders,
  'content-encoding': { type: 'string', enum: ['gzip', 'br'], description: 'Present when the body is compressed, as Accept-Encoding allowed (br or gzip, by q-value)' },
} as const;
export const MapRequestHeaders = Type.Object({
  'if-none-match': Type.Optional(Type.String({ description: 'The ETag of an answer you have: 304 while it is still current' })),
  'accept-encoding': Type.Optional(Type.String({ description: 'br and gzip are offered; the highest q-value wins, br on a tie' })),
});

export type MapAnswerSent = 'not_modified' | 'sent';

/**
 * Sends 304 (no body) or 200 with the chosen representation, and says which it
 * was: at once when the bytes are built already (the hot path), else once they are.
 */
export function sendMapAnswer(req: FastifyRequest, reply: FastifyReply, body: EncodedBody): MapAnswerSent | Promise<MapAnswerSent> {
  const chosen = body.in(chooseCoding(req.headers['accept-encoding']));
  // Only on the answer itself: an error while compressing must not carry the map's tag.
  const describe = () => reply.header('etag', chosen.etag).header('vary', 'Accept-Encoding').header('cache-control', 'public, max-age=1');
  if (noneMatchHits(req.headers['if-none-match'], body.tags)) {
    describe().code(304).send();
    return 'not_modified';
  }
  const send = (bytes: Buffer): MapAnswerSent => {
    describe();
    if (chosen.coding !== 'identity') reply.header('content-encoding', chosen.coding);
    reply.type('application/json; charset=utf-8').send(bytes);
    return 'sent';
  };
  return chosen.ready ? send(chosen.ready) : chosen.bytes().then(send);
}
