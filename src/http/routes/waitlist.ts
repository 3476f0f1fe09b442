// The waiting list of a sold-out show (API.md "Waiting list"): join, look, leave.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import * as waitlist from '../../app/waitlist.js';
import type { Context } from '../../app/context.js';
import { requireUser } from '../auth.js';
import { IdParams, noBody, problemResponse, userRefusals } from '../schemas.js';

const JoinInput = Type.Object({ count: Type.Integer({ minimum: 1, maximum: 1000, description: "1..the show's per_user_limit" }) }, { additionalProperties: false });
type JoinInput = Static<typeof JoinInput>;
const Entry = Type.Object({
  position: Type.Integer({ description: 'The place in line, given once per join' }),
  count: Type.Integer(),
  status: Type.Union(['waiting', 'offered', 'lapsed', 'booked', 'left'].map((s) => Type.Literal(s)), {
    description: '`offered`: a hold of `count` adjacent seats was made for you (`hold_id`): pay it like any hold before `expires_at`',
  }),
  hold_id: Type.Optional(Type.String()),
  expires_at: Type.Optional(Type.String({ format: 'date-time' })),
});

export default async function waitlistRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  const security = [{ bearer: [] }];
  const tags = ['waiting list'];
  const onRequest = requireUser(ctx);

  app.post<{ Params: IdParams; Body: JoinInput }>('/v1/shows/:id/waitlist', {
    onRequest,
    schema: { tags, summary: "Join a sold-out show's waiting list", security, params: IdParams, body: JoinInput,
      description: 'Seats that free up go to the list first, in order of position: the first entry whose `count` fits gets a hold of that many '
        + 'adjacent seats for the show\'s `hold_ttl_seconds` (no admission token needed). Joining again keeps the place with the new `count`.',
      response: {
        201: { ...Entry, description: 'On the list' },
        200: { ...Entry, description: 'Already on the list: the same position (the new count while waiting)' },
        400: problemResponse("VALIDATION_FAILED: count outside 1..the show's per_user_limit"),
        ...userRefusals,
        403: problemResponse('SALE_CLOSED: the show has started'),
        404: problemResponse('NOT_FOUND: no such show'),
        409: problemResponse('SEATS_AVAILABLE: count adjacent seats are free: hold them instead'),
      } },
  }, async (req, reply) => {
    const { entry, created } = await waitlist.joinWaitlist(ctx, req.principal!, req.params.id, req.body.count);
    return reply.code(created ? 201 : 200).send(entry);
  });

  app.get<{ Params: IdParams }>('/v1/shows/:id/waitlist/me', {
    onRequest,
    schema: { tags, summary: 'Your place on the waiting list, and your offer', security, params: IdParams,
      description: '`status`: `waiting`; `offered` (pay `hold_id` like any hold before `expires_at`); `lapsed` (the offer expired unpaid); '
        + '`booked` (the offer was paid); `left` (you left the list).',
      response: { 200: { ...Entry, description: 'Your entry' }, ...userRefusals, 404: problemResponse('NOT_FOUND: you are not on this list') } },
  }, async (req) => waitlist.myEntry(ctx, req.principal!, req.params.id));

  app.delete<{ Params: IdParams }>('/v1/shows/:id/waitlist/me', {
    onRequest,
    schema: { tags, summary: 'Leave the waiting list', security, params: IdParams,
      description: 'An open offer is given up with it: its hold is released and its seats go to the next in line. A payment in flight keeps its hold.',
      response: { 204: noBody('Not on the list any more; repeating it is harmless'), ...userRefusals } },
  }, async (req, reply) => {
    await waitlist.leaveWaitlist(ctx, req.principal!, req.params.id);
    return reply.code(204).send();
  });
}
