// Starts a real boxoffice instance listening on a random port, against its own
// PostgreSQL database (or PGlite in memory), for tests that speak HTTP to it.
import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../../src/config.js';
import { openService, type Service } from '../../src/service.js';
import { openPglite, type EmbeddedDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import type { OpenFileLimit } from '../../src/live/streamCapacity.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { HttpClient, observeAnswers } from './http.js';
import { AnswerCheck } from './openapiCheck.js';
import { buildSimulator, type Simulator, type SimulatorOptions } from '@boxoffice/paysim';

/** A migrated embedded database's image, made once per test worker (a fresh PGlite took ~4 s, a copy ~1 s). */
let migratedImage: Promise<Blob> | null = null;

/** An embedded database in memory with every migration applied, started from the worker's image. */
async function migratedPglite(): Promise<EmbeddedDatabase> {
  if (!migratedImage) {
    migratedImage = (async () => {
      const first = await openPglite(null);
      try {
        await migrate(first);
        return await first.image();
      } finally {
        await first.close();
      }
    })();
    // A failed image is made again by the next caller.
    migratedImage.catch(() => { migratedImage = null; });
  }
  return openPglite(null, await migratedImage);
}

export const ADMIN = { email: 'admin@boxoffice.test', password: 'admin-password-1' };

export interface TestService {
  service: Service;
  baseUrl: string;
  http: HttpClient;
  adminToken: string;
  /** The in-process payment simulator, when asked for with `payments`. */
  simulator: Simulator | null;
  /** Checks every answer against the service's /openapi.json (null when the test turned it off). */
  answers: AnswerCheck | null;
  close(): Promise<void>;
}

export async function startTestService(
  opts: {
    pglite?: boolean; config?: Partial<Config>; sweeper?: boolean; payments?: SimulatorOptions; workers?: boolean; logger?: object; openapiCheck?: boolean;
    /** The open file limit the service derives its stream total from, instead of the process's own. */
    openFiles?: OpenFileLimit;
  } = {},
): Promise<TestService> {
  let simulator: Simulator | null = null;
  let simulatorUrl: string | null = null;
  if (opts.payments) {
    simulator = await buildSimulator({ webhook: { retryBaseMs: 100, maxAttempts: 10, concurrency: 8 }, ...opts.payments });
    simulator.start();
    await simulator.app.listen({ host: '127.0.0.1', port: 0 });
    const a = simulator.app.server.address();
    if (!a || typeof a === 'string') throw new Error('no simulator address');
    simulatorUrl = `http://127.0.0.1:${a.port}`;
  }
  let database: TestDatabase | null = null;
  if (!opts.pglite) database = await createTestDatabase();
  const config: Config = {
    ...loadConfig({}),
    port: 0,
    databaseUrl: database?.url ?? null,
    adminEmail: ADMIN.email,
    adminPassword: ADMIN.password,
    seatMapCacheMs: 0,
    sweepIntervalMs: 200,
    poolSize: 20,
    stripeSecretKey: 'sk_test_sim',
    stripeApiUrl: simulatorUrl ?? 'http://127.0.0.1:9',
    paymentTimeoutMs: 2000,
    reconcileBaseSeconds: 0.2,
    workerIntervalMs: 100,
    // Idle workers slow down as in production (2 s there), to a pause tests can wait out.
    workerIdleMaxMs: 300,
    // Tests fire hundreds of requests from loopback: no rate limit unless a test asks for one.
    rateLimitExempt: ['127.0.0.0/8', '::1'],
    rateLimitPrefix: `bo_test:${randomBytes(6).toString('hex')}`,
    // Likewise no overload shedding (503) unless a test asks: they fire hundreds of requests at once on purpose.
    purchaseConcurrency: { initial: 100_000, min: 100_000, max: 100_000, bookingMin: 100_000 },
    // And database bounds for a machine running a dozen test files on two cores: the
    // production ones (1.5 s to connect, 1.2 s a statement) turned a slow moment into
    // a 503 in tests about something else. The bounds' own tests set them.
    dbBounds: { connectMs: 5000, queueMs: 10_000, statementMs: 10_000, backgroundStatementMs: 10_000 },
    ...opts.config,
  };
  const db = opts.pglite ? await migratedPglite() : undefined;
  const service = await openService(config, { db, logger: opts.logger, openFiles: opts.openFiles });
  if (opts.sweeper !== false) service.sweeper.start();
  if (opts.workers ?? Boolean(opts.payments)) service.workers.start();
  await service.app.listen({ host: '127.0.0.1', port: 0 });
  const address = service.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  const baseUrl = `http://127.0.0.1:${address.port}`;
  const http = new HttpClient(baseUrl);
  const answers = opts.openapiCheck === false ? null : await AnswerCheck.load(baseUrl);
  observeAnswers(baseUrl, answers);
  simulator?.ctx.webhooks.setEndpoint(`${baseUrl}/v1/payments/webhook`);
  const session = await http.post('/v1/sessions', ADMIN);
  if (session.status !== 200) throw new Error(`admin sign-in failed: ${session.status} ${session.text}`);
  return {
    service,
    baseUrl,
    http,
    adminToken: session.body.token as string,
    simulator,
    answers,
    async close() {
      observeAnswers(baseUrl, null);
      await service.close();
      await simulator?.close();
      if (db) await db.close();
      await database?.drop();
      // Every answer this service gave a test must be one its OpenAPI document declares.
      if (answers?.mismatches.length) {
        throw new Error(`${answers.mismatches.length} answers not declared by /openapi.json:\n${[...new Set(answers.mismatches)].join('\n')}`);
      }
    },
  };
}

/**
 * A second instance of `t`'s service on the same database (and Redis prefix), listening on
 * a port of its own; `config` changes some of its settings. The caller closes `service`.
 */
export async function startSecondInstance(t: TestService, config: Partial<Config> = {}): Promise<{ service: Service; http: HttpClient }> {
  const service = await openService({ ...t.service.ctx.config, ...config });
  await service.app.listen({ host: '127.0.0.1', port: 0 });
  return { service, http: new HttpClient(`http://127.0.0.1:${(service.app.server.address() as { port: number }).port}`) };
}
