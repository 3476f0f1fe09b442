// Entry point: `serve` (default), `worker` (background work only), `migrate`, `seed`.
import { loadConfig } from './config.js';
import { openService } from './service.js';
import { seedDemoCatalog } from './app/demoCatalog.js';
import { startBundledSimulator, StartRefused } from './payments/bundledSimulator.js';
import { adminCommand, announceAdmins } from './cli/admin.js';
import { TEST_PAYMENT_METHODS_FOR_PEOPLE } from './app/paymentMethods.js';
import { createLogger } from './http/logging.js';

/** Straight to standard output, never through the logger: `npm run admin`'s dialogue and the demo credential. */
const plain = (msg: string) => process.stdout.write(`${msg}\n`);

async function main(command: string, args: string[]): Promise<void> {
  const config = loadConfig();
  if (!['serve', 'worker', 'migrate', 'seed', 'admin'].includes(command)) throw new Error(`unknown command "${command}" (serve | worker | migrate | seed | admin)`);
  // One format for the banner and the logs: pretty on a terminal, JSON lines otherwise.
  // `npm run admin` talks to a person at a prompt: plain lines, no logger.
  const log = command === 'admin' ? null : createLogger({ name: 'boxoffice', level: config.logLevel, pretty: process.stdout.isTTY === true });
  const say = log ? (msg: string) => log.info(msg) : plain;
  // The bundled simulator listens first: with its port taken the start is refused before
  // anything is opened, and no purchase is ever paid through what holds that port.
  const simulator = command === 'serve' && !config.stripeSecretKey
    ? await startBundledSimulator({ port: config.paysimPort, dataDir: config.paysimDataDir, webhookSecret: config.stripeWebhookSecret, say: (m) => log?.warn(m) })
    : null;
  say(`boxoffice: ${config.databaseUrl ? 'PostgreSQL at DATABASE_URL' : `embedded PGlite under ${config.dataDir}/pglite`}`);
  const service = await openService(config, {
    logger: log ?? false,
    log: say,
  });
  if (command === 'migrate') return service.close();
  if (command === 'admin') {
    try {
      return await adminCommand(service, args, say);
    } finally {
      await service.close();
    }
  }
  if (command === 'seed' || (config.seedDemo && command === 'serve')) {
    const made = await seedDemoCatalog(service.ctx, say);
    if (command === 'seed' && !made) say('the catalog is not empty: nothing seeded');
  }
  if (command === 'seed') return service.close();
  if (command === 'serve') await announceAdmins(service.ctx, say, plain);

  service.sweeper.start();
  service.workers.start();
  const metricsAt = await service.listenMetrics();
  if (metricsAt) say(`metrics on http://${config.host}:${metricsAt.port}/metrics${config.metricsToken ? ' (bearer METRICS_TOKEN)' : ''}`);
  if (command === 'serve') {
    // Warmed before /readyz says ready (and before the "serving on" line): it answers 503 "warming up" meanwhile.
    const warming = service.warm();
    await service.app.listen({ host: config.host, port: config.port, backlog: config.listenBacklog });
    const address = service.app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const w = await warming;
    const warmed = { warmup_ms: w.ms, connections: w.connections, statements: w.statements, shows: w.shows, requests: w.requests };
    if (w.phase === 'warm') service.ctx.log.info(warmed, w.why ? `warm-up: ${w.why}` : 'warmed up: ready');
    else service.ctx.log.warn({ ...warmed, why: w.why }, `warm-up ${w.phase}: serving anyway, partly cold`);
    if (simulator) {
      simulator.sendWebhooksTo(`http://${config.host}:${port}/v1/payments/webhook`);
      say(`payment simulator (Stripe-compatible, key sk_test_sim) on http://127.0.0.1:${config.paysimPort}`);
      say('test payment methods:');
      for (const [method, effect] of TEST_PAYMENT_METHODS_FOR_PEOPLE) say(`  ${method.padEnd(26)}${effect}`);
    }
    say(`boxoffice is serving on http://${config.host}:${port}  (API docs: http://${config.host}:${port}/docs)`);
  } else {
    say('boxoffice worker: reconciling payments, delivering the outbox, sweeping expired holds');
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.ctx.log.info({ signal }, 'shutting down: finishing requests in flight');
    await service.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main(process.argv[2] ?? 'serve', process.argv.slice(3)).catch((err) => {
  process.stderr.write(`boxoffice failed to start: ${err instanceof StartRefused ? err.message : err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
