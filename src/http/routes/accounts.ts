import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import * as accounts from '../../app/accounts.js';
import type { Context } from '../../app/context.js';
import { requireRole } from '../auth.js';
import { clientOf } from '../rateLimitHooks.js';
import { Credentials, IdParams, problemResponse, rateLimited, Registration, RoleChange, roleRefusals } from '../schemas.js';

export default async function accountRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  app.post<{ Body: Registration }>('/v1/users', {
    schema: {
      tags: ['accounts'], summary: 'Register a buyer account', body: Registration,
      description: 'Creates a buyer account (role `user`) and signs it in: the answer carries a bearer token. Passwords are at least 8 characters.',
      response: {
        201: Type.Object({ user_id: Type.String(), token: Type.String({ description: 'Bearer token for the Authorization header' }) },
          { description: 'The account exists and is signed in', examples: [{ user_id: 'usr_01J9', token: 'eyJhbGciOiJIUzI1NiJ9…' }] }),
        409: problemResponse('EMAIL_TAKEN: an account with this email already exists'),
        ...rateLimited,
      },
    },
  }, async (req, reply) => reply.code(201).send(await accounts.register(ctx, req.body, clientOf(ctx, req))));

  app.post<{ Body: Credentials }>('/v1/sessions', {
    schema: {
      tags: ['accounts'], summary: 'Sign in', body: Credentials,
      description: 'Exchanges email and password for a bearer token. Repeated failed sign-ins for one account slow down further (429).',
      response: {
        200: Type.Object({ user_id: Type.String(), token: Type.String({ description: 'Bearer token for the Authorization header' }), role: Type.String({ description: '`user`, `staff` or `admin`' }) },
          { description: 'Signed in', examples: [{ user_id: 'usr_01J9', token: 'eyJhbGciOiJIUzI1NiJ9…', role: 'user' }] }),
        401: problemResponse('INVALID_CREDENTIALS: the email or the password is wrong'),
        ...rateLimited,
      },
    },
  }, async (req) => accounts.signIn(ctx, req.body, clientOf(ctx, req)));

  app.post<{ Params: IdParams; Body: RoleChange }>('/v1/admin/users/:id/role', {
    onRequest: requireRole(ctx, 'admin'),
    schema: {
      tags: ['admin'], summary: "Set a user's role", params: IdParams, body: RoleChange,
      description: 'Sets `user`, `staff` (may check tickets in) or `admin`. Takes effect at once, also for tokens already issued.',
      security: [{ bearer: [] }],
      response: {
        200: Type.Object({ user_id: Type.String(), role: Type.String() }, { description: 'The new role', examples: [{ user_id: 'usr_01J9', role: 'staff' }] }),
        ...roleRefusals('an admin'),
        404: problemResponse('NOT_FOUND: no user with this id'),
      },
    },
  }, async (req) => accounts.changeRole(ctx, req.params.id, req.body.role));
}
