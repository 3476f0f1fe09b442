// The waiting room (API.md "Waiting room"): join, status, admit; the operators' view and controls.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import * as room from '../../app/waitingRoom.js';
import type { Context } from '../../app/context.js';
import { requireRole, requireUser } from '../auth.js';
import { limitQueueJoins } from '../client.js';
import { IdParams, Problem } from '../schemas.js';

const Timestamp = Type.String({ format: 'date-time' });
const Joined = Type.Object({
  queue_token: Type.String(),
  position: Type.Union([Type.Integer(), Type.Null()], { description: 'null before the sale opens: places are drawn at the opening' }),
  pre_queue: Type.Boolean(),
});
const Status = Type.Object({
  serving: Type.Integer(),
  waiting: Type.Integer(),
  admit_rate_per_minute: Type.Number(),
  paused: Type.Boolean(),
  sold_out: Type.Boolean(),
  sale_opens_at: Timestamp,
  opened: Type.Boolean(),
  opening: Type.Optional(Type.Object({ seed: Type.String(), pre_queue: Type.Integer(), opened_at: Timestamp }, {
    description: 'the fair opening: order of the pre-queue = entry ids sorted by sha256(seed ‖ entry id); see docs/waiting-room.md',
  })),
});
const AdmitInput = Type.Object({ queue_token: Type.String({ minLength: 1, maxLength: 4096 }) }, { additionalProperties: false });
type AdmitInput = Static<typeof AdmitInput>;
const Admitted = Type.Object({ admission_token: Type.String(), expires_at: Timestamp });
const ControlInput = Type.Object({
  action: Type.Optional(Type.Union([Type.Literal('pause'), Type.Literal('resume')])),
  max_admit_per_minute: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 1_000_000 }), Type.Null()])),
}, { additionalProperties: false, minProperties: 1 });
type ControlInput = Static<typeof ControlInput>;
const AdminView = Type.Object({
  serving: Type.Integer(),
  waiting: Type.Integer(),
  admitted: Type.Integer(),
  admit_rate_per_minute: Type.Number(),
  paused: Type.Boolean(),
  max_admit_per_minute: Type.Union([Type.Integer(), Type.Null()]),
  sold_out: Type.Boolean(),
  controller: Type.Object({}, { additionalProperties: true }),
  changes: Type.Array(Type.Object({ by: Type.String(), change: Type.Object({}, { additionalProperties: true }), at: Timestamp })),
});

export default async function queueRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  const security = [{ bearer: [] }];
  const tags = ['waiting room'];

  app.post<{ Params: IdParams }>('/v1/shows/:id/queue', {
    onRequest: [requireUser(ctx), limitQueueJoins(ctx)],
    schema: { tags, summary: "Join a show's queue (one place per account)", security, params: IdParams,
      response: { 201: Joined, 403: Problem, 404: Problem, 409: Problem, 429: Problem, 503: Problem } },
  }, async (req, reply) => reply.code(201).send(await room.joinQueue(ctx, req.principal!, req.params.id)));

  app.get<{ Params: IdParams }>('/v1/shows/:id/queue', {
    schema: { tags, summary: "A show's queue: who is served, how many wait (never touches the seat database)", params: IdParams,
      response: { 200: Status, 404: Problem, 409: Problem, 503: Problem } },
  }, async (req) => room.queueStatus(ctx, req.params.id));

  app.post<{ Params: IdParams; Body: AdmitInput }>('/v1/shows/:id/queue/admit', {
    onRequest: requireUser(ctx),
    schema: { tags, summary: 'Exchange a served queue token for an admission token', security, params: IdParams, body: AdmitInput,
      response: { 200: Admitted, 400: Problem, 403: Problem, 404: Problem, 409: Problem, 503: Problem } },
  }, async (req) => room.admit(ctx, req.principal!, req.params.id, req.body.queue_token));

  app.get<{ Params: IdParams }>('/v1/admin/shows/:id/queue', {
    onRequest: requireRole(ctx, 'admin'),
    schema: { tags: ['admin'], summary: "A show's waiting room as operators see it", security, params: IdParams,
      response: { 200: AdminView, 404: Problem, 409: Problem, 503: Problem } },
  }, async (req) => room.adminQueueView(ctx, req.params.id));

  app.post<{ Params: IdParams; Body: ControlInput }>('/v1/admin/shows/:id/queue', {
    onRequest: requireRole(ctx, 'admin'),
    schema: { tags: ['admin'], summary: "Pause, resume or cap a show's waiting room (recorded with who and when)", security, params: IdParams, body: ControlInput,
      response: { 200: AdminView, 400: Problem, 404: Problem, 409: Problem, 503: Problem } },
  }, async (req) => room.changeQueue(ctx, req.principal!, req.params.id, req.body));
}
