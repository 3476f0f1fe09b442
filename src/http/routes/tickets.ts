import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import * as tickets from '../../app/tickets.js';
import type { Context } from '../../app/context.js';
import { requireRole, requireUser, authenticate } from '../auth.js';
import { CheckIn, CheckInInput, IdParams, problemResponse, roleRefusals, Ticket, userRefusals } from '../schemas.js';

export default async function ticketRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  const security = [{ bearer: [] }];

  app.get<{ Params: IdParams }>('/v1/bookings/:id/tickets', {
    onRequest: requireUser(ctx),
    schema: {
      tags: ['tickets'], summary: "A booking's tickets (issued within seconds of confirmation)", security, params: IdParams,
      description: 'Tickets are issued asynchronously: an empty list, then the tickets within a few seconds of confirmation. A booking that is not '
        + 'confirmed has an empty list. `code` is a compact JWS (EdDSA) that verifies offline against `GET /v1/tickets/jwks.json`; the QR URLs are capability URLs that need no header.',
      response: {
        200: Type.Object({ tickets: Type.Array(Ticket) }, {
          description: "The booking's tickets",
          examples: [{ tickets: [{ ticket_id: 'tkt_01J9', seat: 'F7', code: 'eyJhbGciOiJFZERTQSJ9…', qr_svg_url: '/v1/tickets/tkt_01J9/qr.svg?key=…', qr_png_url: '/v1/tickets/tkt_01J9/qr.png?key=…' }] }],
        }),
        ...userRefusals,
        404: problemResponse("NOT_FOUND: no such booking, or another user's"),
      },
    },
  }, async (req) => tickets.listTickets(ctx, req.principal!, req.params.id));

  for (const format of ['svg', 'png'] as const) {
    app.get<{ Params: IdParams; Querystring: { key?: string } }>(`/v1/tickets/:id/qr.${format}`, {
      schema: {
        tags: ['tickets'], summary: `The ticket's QR code as ${format.toUpperCase()} (capability URL, or the owner's token)`,
        description: 'The QR code encodes exactly the ticket\'s `code`. Works without any header through its capability URL (`key`), or with the owner\'s bearer token.',
        params: IdParams, querystring: Type.Object({ key: Type.Optional(Type.String({ maxLength: 100, description: 'The capability key of the URL from the ticket list' })) }),
        response: {
          200: { description: `The QR code (${format.toUpperCase()})`, content: { [format === 'svg' ? 'image/svg+xml' : 'image/png']: { schema: { type: 'string', format: 'binary' } } } },
          404: problemResponse('NOT_FOUND: no such ticket, or a wrong key and no owner token'),
          410: problemResponse("TICKET_VOID: the ticket's booking was cancelled"),
        },
      },
    }, async (req, reply) => {
      const caller = authenticate(ctx, req);
      const image = await tickets.ticketQr(ctx, req.params.id, { key: req.query.key, caller }, format);
      return reply.type(format === 'svg' ? 'image/svg+xml' : 'image/png').header('cache-control', 'private, max-age=3600').send(image);
    });
  }

  app.get('/v1/tickets/jwks.json', {
    schema: {
      tags: ['tickets'], summary: 'Public keys that verify ticket codes (JWS, EdDSA)',
      description: 'A JSON Web Key Set: gates verify ticket codes offline against it.',
      response: {
        200: Type.Object({ keys: Type.Array(Type.Object({ kty: Type.String(), crv: Type.Optional(Type.String()), x: Type.Optional(Type.String()), kid: Type.Optional(Type.String()) }, { additionalProperties: true })) },
          { additionalProperties: true, description: 'The key set', examples: [{ keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'tickets-1', alg: 'EdDSA', use: 'sig' }] }] }),
      },
    },
  }, async (_req, reply) => reply.header('cache-control', 'public, max-age=300').send(ctx.tickets.jwks()));

  app.post<{ Body: CheckInInput }>('/v1/checkin', {
    onRequest: requireRole(ctx, 'staff', 'admin'),
    schema: {
      tags: ['tickets'], summary: 'Check a ticket in at the gate, once', security, body: CheckInInput,
      description: 'For staff at the gate: the first scan of a code answers 200; when two gates scan the same code at the same moment exactly one gets 200.',
      response: {
        200: { ...CheckIn, description: 'Checked in now', examples: [{ ticket_id: 'tkt_01J9', show_id: 'shw_01J9', seat: 'F7', checked_in_at: '2026-12-01T19:55:00.000Z' }] },
        400: problemResponse('TICKET_INVALID: the code does not verify; VALIDATION_FAILED: the body is not valid'),
        ...roleRefusals('staff or an admin'),
        409: problemResponse('ALREADY_CHECKED_IN: checked in before (checked_in_at says when)'),
        410: problemResponse("TICKET_VOID: the ticket's booking was cancelled"),
      },
    },
  }, async (req) => tickets.checkIn(ctx, req.body.code));
}
