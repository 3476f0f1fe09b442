// /v1/events: the event log, the same events the webhook sender delivers.
import type { FastifyInstance } from 'fastify';
import type { SimContext } from './context.js';
import { noSuch } from './errors.js';
import { listPage, pageRequest } from './pagination.js';

export default async function eventRoutes(api: FastifyInstance, { ctx }: { ctx: SimContext }): Promise<void> {
  api.get<{ Params: { id: string } }>('/events/:id', async (request) => {
    const event = ctx.store.events.get(request.params.id);
    if (!event) throw noSuch('event', request.params.id);
    return event;
  });

  api.get('/events', async (request) =>
    listPage(ctx.store.events, pageRequest(request.query as Record<string, unknown>), '/v1/events', 'event'));
}
