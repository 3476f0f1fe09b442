// Entry point of the payment simulator alone (`npm run paysim`): a Stripe-compatible
// "bank" on 127.0.0.1:${PAYSIM_PORT ?? 12111} with secret key sk_test_sim. It keeps its
// records while the service is stopped and restarted; with `--data-dir DIR` (or
// PAYSIM_DATA_DIR) also across its own restarts, in DIR/books.jsonl (see journal.ts).
//
// Environment: PAYSIM_HOST, PAYSIM_PORT, PAYSIM_DATA_DIR; PAYSIM_WEBHOOK_URL (no webhooks without it),
// PAYSIM_WEBHOOK_SECRET (default whsec_sim), PAYSIM_WEBHOOK_RETRY_BASE_MS (1000),
// PAYSIM_WEBHOOK_MAX_ATTEMPTS (10), PAYSIM_WEBHOOK_CONCURRENCY (8); chaos: PAYSIM_LATENCY_MS, PAYSIM_ERROR_RATE,
// PAYSIM_TIMEOUT_AFTER_COMMIT_RATE, PAYSIM_WEBHOOK_DUPLICATE_RATE, PAYSIM_WEBHOOK_DELAY_MS,
// PAYSIM_WEBHOOK_REORDER (true/false), PAYSIM_SEED; LOG_LEVEL. Chaos can also be read
// and changed at runtime: GET/POST /_sim/chaos (JSON); GET /_sim/health has the counts.
import { chaosFromEnv } from './chaos.js';
import { buildSimulator, DEFAULT_SECRET_KEY, DEFAULT_WEBHOOK_SECRET } from './server.js';
import { createLogger } from './logging.js';

/** An integer environment variable of at least `min`, or the fallback when unset. */
function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

/** `--data-dir DIR` or `--data-dir=DIR`, else PAYSIM_DATA_DIR; null keeps the books in memory. */
function dataDir(args: string[], env: NodeJS.ProcessEnv): string | null {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg.startsWith('--data-dir=')) return arg.slice('--data-dir='.length) || null;
    if (arg === '--data-dir') {
      const value = args[i + 1];
      if (!value) throw new Error('--data-dir needs a folder');
      return value;
    }
    throw new Error(`unknown argument "${arg}" (the only one is --data-dir DIR)`);
  }
  return env.PAYSIM_DATA_DIR || null;
}

async function main(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const books = dataDir(args, env);
  const host = env.PAYSIM_HOST || '127.0.0.1';
  const port = int(env, 'PAYSIM_PORT', 12111, 0);
  const seed = env.PAYSIM_SEED ? int(env, 'PAYSIM_SEED', 0, 0) : undefined;
  const sim = await buildSimulator({
    dataDir: books,
    webhookUrl: env.PAYSIM_WEBHOOK_URL || null,
    webhookSecret: env.PAYSIM_WEBHOOK_SECRET || DEFAULT_WEBHOOK_SECRET,
    chaos: chaosFromEnv(env),
    ...(seed === undefined ? {} : { seed }),
    webhook: {
      retryBaseMs: int(env, 'PAYSIM_WEBHOOK_RETRY_BASE_MS', 1000, 1),
      maxAttempts: int(env, 'PAYSIM_WEBHOOK_MAX_ATTEMPTS', 10, 1),
      concurrency: int(env, 'PAYSIM_WEBHOOK_CONCURRENCY', 8, 1),
    },
    // The service's format: pretty on a terminal (the bundled simulator shares the service's), JSON otherwise.
    logger: createLogger({ name: 'paysim', level: env.LOG_LEVEL || 'info', pretty: process.stdout.isTTY === true }),
  });
  sim.start();
  await sim.app.listen({ host, port });
  const say = (msg: string) => sim.app.log.info(msg);
  say(`payment simulator: Stripe-compatible API on http://${host}:${port} (secret key ${DEFAULT_SECRET_KEY})`);
  const bundled = process.send !== undefined;
  say(`payment simulator: books ${books ? `kept in ${books}: ${sim.ctx.store.paymentIntents.size} PaymentIntents, ${sim.ctx.store.refunds.size} refunds` : 'in memory (--data-dir DIR keeps them)'}`);
  say(`payment simulator: webhooks ${env.PAYSIM_WEBHOOK_URL ? `to ${env.PAYSIM_WEBHOOK_URL}` : bundled ? 'to the service that started it' : 'off (set PAYSIM_WEBHOOK_URL)'}; chaos ${JSON.stringify(sim.ctx.chaos.settings)}`);
  if (bundled) {
    // Started by a service (boxoffice's src/payments/bundledSimulator.ts): it waits for this before it listens itself, then says where webhooks go.
    process.on('message', (m: { webhookUrl?: unknown }) => {
      if (typeof m?.webhookUrl === 'string') sim.ctx.webhooks.setEndpoint(m.webhookUrl);
    });
    process.send!({ paysim: 'listening', port });
  }

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await sim.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  // Started by a service (`npm start`): the bundled simulator must not outlive it,
  // also when it is killed outright (exit handlers do not run on SIGKILL).
  if (process.send) process.on('disconnect', () => void stop());
}

main(process.argv.slice(2), process.env).catch((err) => {
  // A taken port is an operator's matter, not a bug: its message alone (the service that started it explains).
  const taken = (err as NodeJS.ErrnoException)?.code === 'EADDRINUSE';
  process.stderr.write(`payment simulator failed to start: ${err instanceof Error ? (taken ? err.message : err.stack) : String(err)}\n`);
  process.exit(1);
});
