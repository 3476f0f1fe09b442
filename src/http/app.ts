// buildApp: the HTTP face of boxoffice as a Fastify instance that does not listen.
// main.ts listens; tests use it directly.
import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Context } from '../app/context.js';
import { installProblemHandlers, problem, sendAnswer } from './problem.js';
import { BODY_LIMIT } from './limits.js';
import { clientErrorHandler, installHttpLayerProblems } from './httpLayer.js';
import { appLogging } from './logging.js';
import type { Logger } from 'pino';
import { refuseUnknownQueryParameters } from './queryParams.js';
import { declareCommonAnswers, documentDescription, ProblemSchema } from './openapi.js';
import accountRoutes from './routes/accounts.js';
import catalogRoutes from './routes/catalog.js';
import seatRoutes from './routes/seats.js';
import seatStreamRoutes from './routes/seatStream.js';
import holdRoutes from './routes/holds.js';
import operationRoutes from './routes/operations.js';
import shardRoutes from './routes/shards.js';
import bookingRoutes from './routes/bookings.js';
import ticketRoutes from './routes/tickets.js';
import webhookRoutes from './routes/webhooks.js';
import paymentMethodRoutes from './routes/paymentMethods.js';
import queueRoutes from './routes/queue.js';
import syntheticBuyerRoutes from './routes/syntheticBuyers.js';
import showCancellationRoutes from './routes/showCancellation.js';
import waitlistRoutes from './routes/waitlist.js';
import { defaultWebRoot, isPageRequest, registerWebApp, type WebApp } from './webApp.js';
import { serverWithFastLane, type FastLane } from './httpServer.js';
import { mapFastLane } from './mapFastLane.js';
import { installPageHeaders } from './securityHeaders.js';

/** TRUST_PROXY=<n>: the n proxies nearest to us are trusted (Fastify's hop count). */
const trustHops = (n: number) => (_address: string, hop: number) => hop < n;

export async function buildApp(ctx: Context, opts: { logger?: Logger | null } = {}): Promise<FastifyInstance> {
  // Map reads answered before the router once the instance is set up (./mapFastLane.ts).
  let fastLane: FastLane | null = null;
  const app = Fastify({
    serverFactory: serverWithFastLane(() => fastLane),
    // One logger for the app and the use-cases (ctx.log), at most one line per request.
    ...appLogging(opts.logger ?? null),
    bodyLimit: BODY_LIMIT,
    // Strict types: "7" is not a number and "F7" is not a list.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true } },
    // The shutdown 503, a missing Host and the parser's refusals answer problem+json (httpLayer.ts).
    return503OnClosing: false,
    http: { requireHostHeader: false },
    clientErrorHandler,
    // TRUST_PROXY: req.ip (the client address the rate limits count) from X-Forwarded-For.
    trustProxy: typeof ctx.config.trustProxy === 'number' ? trustHops(ctx.config.trustProxy) : ctx.config.trustProxy,
    // Errors the router raises before any route runs: problem+json like the rest.
    frameworkErrors: (err, req, reply) => {
      const answer = err.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? problem('NOT_FOUND', 'no resource has an id that long')
        : problem('VALIDATION_FAILED', `the URL is not valid: ${err.message}`);
      sendAnswer(reply, answer);
    },
  });
  app.decorateRequest('principal', null);
  let webApp: WebApp | null = null;
  installProblemHandlers(app, (req, reply) => {
    if (!webApp || !isPageRequest(req)) return false;
    webApp.sendPage(reply);
    return true;
  });
  const layer = installHttpLayerProblems(app);
  // Before every route and plugin (the web app's files, /docs), so that all of them get it.
  installPageHeaders(app);
  // Many clients send `content-type: application/json` on a DELETE with no body.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '') return done(null, undefined);
    return parseJson(req, body as string, done);
  });
  // Every body is JSON: text/plain is a 415 like any other type, not a string that fails validation.
  app.removeContentTypeParser('text/plain');

  app.addSchema(ProblemSchema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'boxoffice', version: '1', description: documentDescription },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    },
    // Shared schemas (Problem) appear under components.schemas by their own name.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  // No validator badge: it would fetch an image from validator.swagger.io, which the page's policy refuses.
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { validatorUrl: null } });
  // The web app's files, before the API's query-parameter rule (assets take none of their own).
  webApp = await registerWebApp(app, ctx.config.webRoot ?? defaultWebRoot());
  if (!webApp) ctx.log.warn('the web app is not built (npm run build): `/` answers 404');
  // After /docs (its static files and OAuth redirect take parameters of their own),
  // before every route of the API.
  app.addHook('onRoute', refuseUnknownQueryParameters);
  app.addHook('onRoute', declareCommonAnswers);

  for (const routes of [accountRoutes, catalogRoutes, seatRoutes, seatStreamRoutes, holdRoutes, bookingRoutes, ticketRoutes, webhookRoutes, paymentMethodRoutes, operationRoutes, shardRoutes, queueRoutes, syntheticBuyerRoutes, showCancellationRoutes, waitlistRoutes]) {
    await app.register(routes, { ctx });
  }
  fastLane = mapFastLane(ctx, layer.closing);
  return app;
}
