import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { createSyntheticBuyers, MAX_SYNTHETIC_BUYERS } from '../../app/syntheticBuyers.js';
import type { Context } from '../../app/context.js';
import { requireRole } from '../auth.js';
import { roleRefusals } from '../schemas.js';

const SyntheticBuyersRequest = Type.Object({
  count: Type.Integer({ minimum: 1, maximum: MAX_SYNTHETIC_BUYERS, description: `How many buyers, at most ${MAX_SYNTHETIC_BUYERS} per request` }),
  label: Type.String({ minLength: 1, maxLength: 100, description: 'What they are for (a rehearsal\'s name); kept on each account' }),
}, { examples: [{ count: 3, label: 'rehearsal-2026-12-01' }] });

/** Only registered with BOXOFFICE_SYNTHETIC_BUYERS=1: otherwise the route does not exist (404). */
export default async function syntheticBuyerRoutes(app: FastifyInstance, { ctx }: { ctx: Context }) {
  if (!ctx.config.syntheticBuyers) return;
  app.post<{ Body: Static<typeof SyntheticBuyersRequest> }>('/v1/admin/synthetic-buyers', {
    onRequest: requireRole(ctx, 'admin'),
    schema: {
      tags: ['admin'], summary: 'Create synthetic buyers (rehearsals, load tests)', body: SyntheticBuyersRequest,
      description: 'Creates buyer accounts marked synthetic under a label, with no password (nobody can sign in as one), and answers a bearer '
        + 'token for each. Exists only when the service runs with `BOXOFFICE_SYNTHETIC_BUYERS=1`; otherwise 404.',
      security: [{ bearer: [] }],
      response: {
        201: Type.Object({
          buyers: Type.Array(Type.Object({ user_id: Type.String(), token: Type.String({ description: 'Bearer token for the Authorization header' }) })),
        }, { description: 'The buyers, each signed in', examples: [{ buyers: [{ user_id: 'usr_01J9', token: 'eyJhbGciOiJIUzI1NiJ9…' }] }] }),
        ...roleRefusals('an admin'),
      },
    },
  }, async (req, reply) => reply.code(201).send(await createSyntheticBuyers(ctx, req.principal!, req.body)));
}
