import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import * as cancellation from '../../app/showCancellation.js';
import type { Context } from '../../app/context.js';
import { requireRole } from '../auth.js';
import { IdParams, noBody, problemResponse, roleRefusals } from '../schemas.js';

const CancelInput = Type.Object({
  reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why the show is cancelled (kept for operators; the first one stays)' }),
}, { examples: [{ reason: 'the artist is ill' }] });
type CancelInput = Static<typeof CancelInput>;

const Cancelled = Type.Object({
  show_id: Type.String(),
  status: Type.String({ description: '`cancelled`' }),
  bookings_to_refund: Type.Integer({ description: 'Every booking the cancellation refunds, whether refunded yet or not' }),
});

const Progress = Type.Object({
  show_id: Type.String(),
  status: Type.String({ description: '`cancelled`' }),
  reason: Type.String(),
  cancelled_at: Type.String(),
  completed: Type.Boolean({ description: 'Every confirmed booking cancelled and no payment in flight; refunds may still be on their way' }),
  bookings_to_refund: Type.Integer(),
  bookings_cancelled: Type.Integer(),
  bookings_remaining: Type.Integer({ description: 'Confirmed bookings not cancelled yet' }),
  payments_pending: Type.Integer({ description: 'Bookings whose payment is in flight: refunded if it succeeds' }),
  refunds: Type.Object({ pending: Type.Integer(), succeeded: Type.Integer(), failed: Type.Integer(), amount_refunded: Type.Integer() }),
});

const progressExample = {
  show_id: 'shw_01J9', status: 'cancelled', reason: 'the artist is ill', cancelled_at: '2026-11-20T10:00:00.000Z', completed: false,
  bookings_to_refund: 1200, bookings_cancelled: 800, bookings_remaining: 400, payments_pending: 3,
  refunds: { pending: 300, succeeded: 500, failed: 0, amount_refunded: 12500000 },
};

export default async function showCancellationRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  const admin = { onRequest: requireRole(ctx, 'admin') };
  const security = [{ bearer: [] }];
  const refusals = { 400: problemResponse('VALIDATION_FAILED: the body is not valid'), ...roleRefusals('an admin'), 404: problemResponse('NOT_FOUND: no such show') };

  app.post<{ Params: IdParams; Body: CancelInput }>('/v1/admin/shows/:id/cancel', {
    ...admin,
    schema: {
      tags: ['admin'], summary: 'Cancel a show: the sale stops, every booking is cancelled and refunded in full', security, params: IdParams, body: CancelInput,
      description: 'Holds, bookings and queue joins answer 409 `SHOW_CANCELLED` at once; every active hold is released; every confirmed booking '
        + 'becomes `cancelled` with a full refund, whatever the cancellation window, and its tickets are void. The refunds run in the background '
        + '(follow them with `GET /v1/admin/shows/{id}/cancellation`); a payment still in flight is refunded once it succeeds. Repeating it is harmless.',
      response: { 202: { ...Cancelled, description: 'The show is cancelled; its refunds are under way', examples: [{ show_id: 'shw_01J9', status: 'cancelled', bookings_to_refund: 1200 }] }, ...refusals },
    },
  }, async (req, reply) => reply.code(202).send(await cancellation.cancelShow(ctx, req.principal!, req.params.id, req.body.reason)));

  app.get<{ Params: IdParams }>('/v1/admin/shows/:id/cancellation', {
    ...admin,
    schema: {
      tags: ['admin'], summary: "A cancelled show's refunds: how far they are", security, params: IdParams,
      description: 'Bookings cancelled and still to cancel, payments still in flight, refunds by state.',
      response: { 200: { ...Progress, description: 'The cancellation and its progress', examples: [progressExample] }, ...roleRefusals('an admin'), 404: problemResponse('NOT_FOUND: no such show, or it is not cancelled') },
    },
  }, async (req) => cancellation.getCancellation(ctx, req.params.id));

  app.delete<{ Params: IdParams }>('/v1/admin/shows/:id', {
    ...admin,
    schema: {
      tags: ['admin'], summary: 'Delete a show nothing was ever booked for', security, params: IdParams,
      description: 'The show, its seats and holds disappear. A show with any booking cannot be deleted: cancel it instead.',
      response: {
        204: noBody('Deleted'),
        ...roleRefusals('an admin'),
        404: problemResponse('NOT_FOUND: no such show'),
        409: problemResponse('SHOW_HAS_BOOKINGS: something was booked for this show; cancel it instead'),
      },
    },
  }, async (req, reply) => {
    await cancellation.deleteShow(ctx, req.params.id);
    return reply.code(204).send();
  });
}
