import type { FastifyInstance } from 'fastify';
import { notFound, validationFailed } from '../../domain/errors.js';
import * as holds from '../../app/holds.js';
import type { Context } from '../../app/context.js';
import { requireUser } from '../auth.js';
import { limitPurchases } from '../rateLimitHooks.js';
import { limitInFlight } from '../purchaseLimit.js';
import { sendProblem } from '../problem.js';
import { AdmissionHeader, Hold, HoldInput, IdParams, noBody, problemResponse, rateLimited, userRefusals } from '../schemas.js';

const holdExample = { hold_id: 'hld_01J9', show_id: 'shw_01J9', seats: ['F7', 'F8'], status: 'active', expires_at: '2026-12-01T20:10:00.000Z', amount: 50000, currency: 'EUR' };

export default async function holdRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  const user = { onRequest: requireUser(ctx) };
  const buyer = { onRequest: [requireUser(ctx), limitPurchases(ctx)] };
  const holdSlot = limitInFlight(ctx, 'hold');
  const holdBuyer = { onRequest: [requireUser(ctx), limitPurchases(ctx), holdSlot.onRequest], onSend: holdSlot.onSend };
  const security = [{ bearer: [] }];

  app.post<{ Params: IdParams; Body: HoldInput }>('/v1/shows/:id/holds', {
    ...holdBuyer,
    // The contract answers an unknown show (404) before a bad body (400), even one
    // that does not parse: so the show is looked up before the body is read.
    preParsing: async (req, _reply, payload) => {
      const showId = (req.params as IdParams).id;
      if (!ctx.halls.known(showId) && !(await ctx.halls.forShow(showId))) throw notFound('show');
      return payload;
    },
    schema: {
      tags: ['holds'], summary: 'Hold seats, chosen or best available: all of them or none', security, params: IdParams, body: HoldInput, headers: AdmissionHeader,
      description: 'Holds every requested seat for the caller until `expires_at` (now + the show\'s `hold_ttl_seconds`), or none of them. '
        + 'With `best_available` instead of `seats`, the service chooses `count` adjacent seats in the same claim (409 `NOT_ENOUGH_SEATS` when none are left). '
        + 'Pay for the hold with `POST /v1/bookings`. When several checks fail, the first in this order answers: '
        + '401 → 404 → 400 → 403 `SALE_NOT_OPEN`/`SALE_CLOSED` → 403 `QUEUE_REQUIRED` → 409 `SEAT_UNAVAILABLE` (or `NOT_ENOUGH_SEATS`) → 409 `LIMIT_EXCEEDED`.',
      response: {
        201: { ...Hold, description: 'Every requested seat (or the chosen best seats) is held by the caller', examples: [holdExample] },
        400: problemResponse('VALIDATION_FAILED: an empty list, duplicated or unknown seats, more seats than the per-user limit, an unknown section or tier, both `seats` and `best_available`, a malformed body'),
        ...userRefusals,
        403: problemResponse('SALE_NOT_OPEN before sale_opens_at; SALE_CLOSED once the show started; QUEUE_REQUIRED for a waiting-room show without a valid Admission-Token'),
        404: problemResponse('NOT_FOUND: no such show'),
        409: problemResponse('SEAT_UNAVAILABLE (taken lists the seats held or booked; none was held by this request), NOT_ENOUGH_SEATS (best available: no adjacent seats match), LIMIT_EXCEEDED (the per-user limit of the show), or SHOW_CANCELLED (the show was cancelled)'),
        ...rateLimited,
        503: problemResponse('OVERLOADED: the purchase path is busy (with Retry-After); NOT_READY while this instance shuts down'),
      },
    },
  }, async (req, reply) => {
    const body = req.body;
    const best = 'best_available' in body ? body.best_available : null;
    if (best && 'seats' in body) throw validationFailed('send either seats or best_available, not both', [{ path: '/best_available', message: 'not with seats' }]);
    const result = best
      ? await holds.holdBestSeats(ctx, req.principal!, req.params.id, best, req.headers['admission-token'])
      : await holds.holdSeats(ctx, req.principal!, req.params.id, (body as { seats: string[] }).seats, req.headers['admission-token']);
    if ('refused' in result) {
      if (result.inMemory) holdSlot.decidedInMemory(req);
      return sendProblem(reply, result.refused.code, result.refused.message, result.refused.extensions);
    }
    return reply.code(201).send(result.hold);
  });

  app.get<{ Params: IdParams }>('/v1/holds/:id', {
    ...user,
    schema: {
      tags: ['holds'], summary: 'A hold of yours', security, params: IdParams,
      description: 'The hold and its status: `active`, `paying` (a payment is in flight), `confirmed` (it became a booking), `released` or `expired`.',
      response: {
        200: { ...Hold, description: 'The hold', examples: [holdExample] },
        ...userRefusals,
        404: problemResponse("NOT_FOUND: no such hold, or another user's"),
      },
    },
  }, async (req) => holds.getHold(ctx, req.principal!, req.params.id));

  app.delete<{ Params: IdParams }>('/v1/holds/:id', {
    ...buyer,
    schema: {
      tags: ['holds'], summary: 'Release a hold of yours', security, params: IdParams,
      description: 'Its seats can be held again at once (the seat map and stream show it within 2 s). Repeating it is harmless.',
      response: {
        204: noBody('Released (or released before, or expired)'),
        ...userRefusals,
        404: problemResponse("NOT_FOUND: no such hold, or another user's"),
        409: problemResponse('HOLD_PAYING while a payment is in flight; HOLD_CONFIRMED once it became a booking (cancel the booking instead)'),
        ...rateLimited,
      },
    },
  }, async (req, reply) => {
    await holds.releaseHold(ctx, req.principal!, req.params.id);
    return reply.code(204).send();
  });
}
