// The waiting room (API.md "Waiting room"): join, status, admit; the operators' view and controls.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import * as room from '../../app/waitingRoom.js';
import type { Context } from '../../app/context.js';
import { requireRole, requireUser } from '../auth.js';
import { limitQueueJoins } from '../rateLimitHooks.js';
import { IdParams, problemResponse, rateLimited, roleRefusals, userRefusals } from '../schemas.js';

const Timestamp = Type.String({ format: 'date-time' });
const Joined = Type.Object({
  queue_token: Type.String(),
  position: Type.Union([Type.Integer(), Type.Null()], { description: 'null before the sale opens: places are drawn at the opening' }),
  pre_queue: Type.Boolean(),
  retry_after_seconds: Type.Integer({ description: 'When to first ask to be admitted: 0 when the place is served already, else the pacing a NOT_YET_ADMITTED answer would give' }),
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

const noShow = problemResponse('NOT_FOUND: no such show');
const noRoom = problemResponse('NO_WAITING_ROOM: this show does not sell through a waiting room');
const storeDown = problemResponse('OVERLOADED: the waiting room cannot reach its store right now (Retry-After); NOT_READY while this instance shuts down');

export default async function queueRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  const security = [{ bearer: [] }];
  const tags = ['waiting room'];

  app.post<{ Params: IdParams }>('/v1/shows/:id/queue', {
    onRequest: [requireUser(ctx), limitQueueJoins(ctx)],
    schema: { tags, summary: "Join a show's queue (one place per account)", security, params: IdParams,
      description: 'Gives the caller a signed queue token and a place in the queue. Asking again returns the same place, unless it lapsed '
        + '(served, and not admitted within the grace period): then a new place at the back, with a new queue token. '
        + 'Before `sale_opens_at` the place is in the pre-queue (`position: null`, `pre_queue: true`): at the opening everyone in it is '
        + 'placed in a random order whose seed the queue status then publishes.',
      response: { 201: { ...Joined, description: 'The queue token and the place' }, ...userRefusals, 404: noShow, 409: problemResponse('NO_WAITING_ROOM: this show does not sell through a waiting room; SHOW_CANCELLED: the show was cancelled'), ...rateLimited, 503: storeDown } },
  }, async (req, reply) => reply.code(201).send(await room.joinQueue(ctx, req.principal!, req.params.id)));

  app.get<{ Params: IdParams }>('/v1/shows/:id/queue', {
    schema: { tags, summary: "A show's queue: who is served, how many wait (never touches the seat database)", params: IdParams,
      description: 'Who may be admitted now (`position <= serving`), how many wait, the admission rate, and whether the room is paused or sold out. '
        + 'Answered without the seat database; up to 2 s stale.',
      response: { 200: { ...Status, description: 'The queue' }, 404: noShow, 409: noRoom, 503: storeDown } },
  }, async (req) => room.queueStatus(ctx, req.params.id));

  app.post<{ Params: IdParams; Body: AdmitInput }>('/v1/shows/:id/queue/admit', {
    onRequest: requireUser(ctx),
    schema: { tags, summary: 'Exchange a served queue token for an admission token', security, params: IdParams, body: AdmitInput,
      description: 'Once the queue token\'s position is served, gives an admission token for `Admission-Token` on holds and bookings of this show. '
        + 'Asking again while admitted gives the same admission (same `expires_at`); a position not admitted within the grace period after it was served lapses for good.',
      response: {
        200: { ...Admitted, description: 'The admission token and when it expires' },
        400: problemResponse('TOKEN_INVALID: a forged, expired or someone else\'s queue token; VALIDATION_FAILED for a malformed body'),
        ...userRefusals,
        403: problemResponse('NOT_YET_ADMITTED: the position is not served yet, or the room is paused or sold out (position, serving, retry_after_seconds); '
          + 'ADMISSION_LAPSED: the position was served but not admitted within the grace period (join again to queue at the back)'),
        404: noShow, 409: noRoom, 503: storeDown,
      } },
  }, async (req) => room.admit(ctx, req.principal!, req.params.id, req.body.queue_token));

  app.get<{ Params: IdParams }>('/v1/admin/shows/:id/queue', {
    onRequest: requireRole(ctx, 'admin'),
    schema: { tags: ['admin'], summary: "A show's waiting room as operators see it", security, params: IdParams,
      description: 'serving, waiting, admitted, the admission rate and its cap, whether it is paused, the controller\'s inputs and the latest recorded changes (who, when).',
      response: { 200: { ...AdminView, description: 'The room as operators see it, with the controller\'s inputs and the latest changes' }, ...roleRefusals('an admin'), 404: noShow, 409: noRoom, 503: storeDown } },
  }, async (req) => room.adminQueueView(ctx, req.params.id));

  app.post<{ Params: IdParams; Body: ControlInput }>('/v1/admin/shows/:id/queue', {
    onRequest: requireRole(ctx, 'admin'),
    schema: { tags: ['admin'], summary: "Pause, resume or cap a show's waiting room (recorded with who and when)", security, params: IdParams, body: ControlInput,
      description: '`{action: "pause" | "resume"}` and/or `{max_admit_per_minute: n | null}` (0 admits no one, null removes the cap); each change is recorded with who made it and when.',
      response: {
        200: { ...AdminView, description: 'The room after the change' },
        400: problemResponse('VALIDATION_FAILED: an unknown action or a negative cap'),
        ...roleRefusals('an admin'), 404: noShow, 409: noRoom, 503: storeDown,
      } },
  }, async (req) => room.changeQueue(ctx, req.principal!, req.params.id, req.body));
}
