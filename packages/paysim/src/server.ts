// buildSimulator: the Stripe-compatible payment simulator as a Fastify instance
// that does not listen yet, with its books, chaos and webhook sender. main.ts
// listens; tests and the service's own start-up use it directly.
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { appLogging, loggerFrom } from './logging.js';
import qs from 'qs';
import { sendError } from './answers.js';
import { installApiHooks } from './apiHooks.js';
import { Chaos, type ChaosSettings } from './chaos.js';
import type { SimContext, Timing } from './context.js';
import { StripeApiError, invalidParam, routeNotFound } from './errors.js';
import eventRoutes from './eventRoutes.js';
import { parseForm } from './form.js';
import { HeldConnections } from './heldConnections.js';
import { DEFAULT_KEY_TTL_MS, IdempotencyKeys } from './idempotency.js';
import paymentIntentRoutes from './paymentIntentRoutes.js';
import refundRoutes from './refundRoutes.js';
import simRoutes from './simRoutes.js';
import { Store } from './store.js';
import { keepBooksIn } from './books.js';
import { DEFAULT_WEBHOOK_TUNING, WebhookSender, type WebhookTuning } from './webhooks.js';

export const DEFAULT_SECRET_KEY = 'sk_test_sim';
export const DEFAULT_WEBHOOK_SECRET = 'whsec_sim';

export interface SimulatorOptions {
  /** Secret keys the API accepts; idempotency keys are scoped to each. */
  apiKeys?: string[];
  /** Where events are POSTed; null keeps them only in GET /v1/events. */
  webhookUrl?: string | null;
  webhookSecret?: string;
  webhook?: Partial<WebhookTuning>;
  chaos?: Partial<ChaosSettings>;
  /** Seeds the chaos generator, so a chaos run can be repeated. */
  seed?: number;
  timing?: Partial<Timing>;
  /** The longest a lost answer keeps its connection open when the client never gives up. */
  maxHoldMs?: number;
  idempotencyKeyTtlMs?: number;
  /** A folder to keep the books in (read back at start, written as they change); without it they live in memory only. */
  dataDir?: string | null;
  /** Options (`{ level, stream }`) or a logger; the simulator logs under the name `paysim`. */
  logger?: boolean | object | Logger;
}

export interface Simulator {
  app: FastifyInstance;
  ctx: SimContext;
  /** Starts delivering webhooks. */
  start(): void;
  /** Stops the webhook sender, drops held connections and closes the server. */
  close(): Promise<void>;
}

export async function buildSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  // The books first: a file that cannot be read stops the start before anything is opened.
  const store = new Store();
  const keys = new IdempotencyKeys(opts.idempotencyKeyTtlMs ?? DEFAULT_KEY_TTL_MS);
  const journal = opts.dataDir ? keepBooksIn(opts.dataDir, store, keys) : null;
  let requests = 0;
  const app = Fastify({
    // An on-sale simulation sends thousands of requests: their lines only at debug.
    ...appLogging(loggerFrom('paysim', opts.logger)),
    // Its own request ids, so its lines are never taken for the service's (req-N).
    genReqId: () => `sim-${++requests}`,
    // Stripe's GET parameters use the same bracket notation as its bodies.
    routerOptions: { querystringParser: (text: string) => qs.parse(text, { depth: 5, arrayLimit: 100 }) },
    return503OnClosing: true,
  });
  const chaos = new Chaos(opts.chaos, opts.seed);
  const webhooks = new WebhookSender(
    { url: opts.webhookUrl ?? null, secret: opts.webhookSecret ?? DEFAULT_WEBHOOK_SECRET },
    chaos,
    { ...DEFAULT_WEBHOOK_TUNING, ...opts.webhook },
    app.log,
  );
  const ctx: SimContext = {
    store,
    chaos,
    keys,
    held: new HeldConnections(opts.maxHoldMs ?? 600_000),
    webhooks,
    timing: { slowMs: 3000, commitDelayMs: 100, ...opts.timing },
    apiKeys: new Set(opts.apiKeys ?? [DEFAULT_SECRET_KEY]),
  };

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, parseForm(body as string));
  });
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof StripeApiError) return sendError(reply, err);
    if (err.statusCode !== undefined && err.statusCode < 500) return sendError(reply, invalidParam(err.message, 'parameter_invalid_string'));
    request.log.error({ err }, 'payment simulator failed');
    return reply.code(500).send({ error: { type: 'api_error', message: 'An unknown error occurred in the payment simulator.' } });
  });
  app.setNotFoundHandler((request, reply) => sendError(reply, routeNotFound(request.method, request.url)));

  await app.register(async (api) => {
    installApiHooks(api, ctx);
    await api.register(paymentIntentRoutes, { ctx });
    await api.register(refundRoutes, { ctx });
    await api.register(eventRoutes, { ctx });
  }, { prefix: '/v1' });
  await app.register(simRoutes, { ctx });

  // Held sockets would keep server.close() waiting forever: drop them first.
  app.addHook('preClose', async () => {
    webhooks.stop();
    ctx.held.releaseAll();
  });
  // After the last request has ended: nothing is written once the file is closed.
  app.addHook('onClose', async () => journal?.close());

  return {
    app,
    ctx,
    start: () => webhooks.start(),
    close: () => app.close(),
  };
}
