// `npm start` without STRIPE_SECRET_KEY runs the bundled payment simulator as its
// own process (own port). It must be listening before the service does: were its
// port taken, the service would pay through whatever answers there (another
// instance's simulator, whose webhooks go to that other service).
import { spawn, type ChildProcess } from 'node:child_process';
import { SIMULATOR_MAIN } from '@boxoffice/paysim';
import { SIMULATOR_SECRET_KEY } from '../config.js';

const START_WITHIN_MS = 30_000;
const PROBE_MS = 2000;

/** The service must not start; the message says why and what to set. */
export class StartRefused extends Error {}

export interface BundledSimulator {
  child: ChildProcess;
  /** Where its webhooks go, once the service listens (its port may be chosen at listen). */
  sendWebhooksTo(url: string): void;
}

/** Starts the simulator and waits until it listens; refuses when it cannot (its port taken, a bad PAYSIM_* setting). */
export async function startBundledSimulator(opts: { port: number; webhookSecret: string; dataDir: string | null; say: (m: string) => void }): Promise<BundledSimulator> {
  const child = spawn(process.execPath, [SIMULATOR_MAIN], {
    // No PAYSIM_WEBHOOK_URL from our environment: the service sends its own once it listens.
    // Its books in dataDir outlive both processes: a booking paid before a restart is refunded after it.
    env: { ...process.env, PAYSIM_PORT: String(opts.port), PAYSIM_WEBHOOK_URL: '', PAYSIM_WEBHOOK_SECRET: opts.webhookSecret, PAYSIM_DATA_DIR: opts.dataDir ?? '' },
    // The IPC channel closes when this process dies in any way, SIGKILL included,
    // and the simulator then stops (see packages/paysim/src/main.ts).
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.unref();
  child.channel?.unref();
  // The simulator must not outlive the service that started it.
  process.on('exit', () => child.kill());

  const listening = await new Promise<boolean | number | null>((resolve) => {
    const timer = setTimeout(() => resolve(false), START_WITHIN_MS);
    child.on('message', (m: { paysim?: string }) => {
      if (m?.paysim === 'listening') {
        clearTimeout(timer);
        resolve(true);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? (signal ? 128 : null));
    });
  });
  if (listening !== true) {
    child.kill();
    const where = `127.0.0.1:${opts.port}`;
    if (listening === false) throw new StartRefused(`the bundled payment simulator did not listen on ${where} within ${START_WITHIN_MS / 1000} s`);
    const holder = await portHolder(opts.port);
    if (holder === null) throw new StartRefused(`the bundled payment simulator exited (${listening}) before listening on ${where}: see its message above`);
    throw new StartRefused([
      `the bundled payment simulator cannot listen on ${where}: ${where} is taken by ${holder.what}.`,
      'boxoffice did not start: it would have paid through whatever holds that port. '
        + `Give this instance's simulator another port: PAYSIM_PORT=<a free port> npm start${holder.simulator ? '; or use the running simulator on purpose:' : '.'}`,
      ...(holder.simulator ? [
        `  STRIPE_SECRET_KEY=${SIMULATOR_SECRET_KEY} STRIPE_API_URL=http://${where} npm start`,
        '  (its webhooks reach this instance only if it was started with PAYSIM_WEBHOOK_URL=http://<this HOST:PORT>/v1/payments/webhook).',
      ] : []),
    ].join('\n'));
  }
  child.on('exit', (code, signal) => opts.say(`payment simulator exited (${signal ?? code})`));
  return { child, sendWebhooksTo: (url) => child.send({ webhookUrl: url }) };
}

/** What listens on the port, in words, and whether it is a payment simulator; null when nothing does. */
async function portHolder(port: number): Promise<{ what: string; simulator: boolean } | null> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/_sim/health`, { signal: AbortSignal.timeout(PROBE_MS) });
    const body = await r.json().catch(() => null) as { ok?: unknown; payment_intents?: unknown } | null;
    if (r.ok && body?.ok === true && typeof body.payment_intents === 'number') {
      return { what: `another payment simulator (${body.payment_intents} PaymentIntents on its books)`, simulator: true };
    }
    return { what: `a program that is not a payment simulator (GET /_sim/health answered ${r.status})`, simulator: false };
  } catch (err) {
    if ((err as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED') return null;
    return { what: 'a program that is not a payment simulator (no HTTP answer)', simulator: false };
  }
}
