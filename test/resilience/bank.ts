// The "bank" of the tests that run the built service as a child process: the payment
// simulator in the test's own process, so it keeps its books (and keeps sending
// webhooks) while the service is killed, restarted or starved. Not a test file.
import type { AddressInfo } from 'node:net';
import { buildSimulator, type Simulator } from '@boxoffice/paysim';

/** Listens on a free port and sends webhooks to the service that will listen on `servicePort`. */
export async function startBank(servicePort: number, retry: { retryMaxMs: number; attemptTimeoutMs: number }): Promise<{ sim: Simulator; port: number }> {
  const sim = await buildSimulator({
    webhookUrl: `http://127.0.0.1:${servicePort}/v1/payments/webhook`,
    webhookSecret: 'whsec_sim',
    webhook: { retryBaseMs: 200, maxAttempts: 40, concurrency: 8, ...retry },
    logger: false,
  });
  sim.start();
  await sim.app.listen({ host: '127.0.0.1', port: 0 });
  return { sim, port: (sim.app.server.address() as AddressInfo).port };
}

/** The environment a child service needs to pay through the bank on `bankPort`, quickly settling what is unknown. */
export function payThroughBank(bankPort: number): Record<string, string> {
  return {
    STRIPE_SECRET_KEY: 'sk_test_sim',
    STRIPE_API_URL: `http://127.0.0.1:${bankPort}`,
    STRIPE_WEBHOOK_SECRET: 'whsec_sim',
    PAYMENT_TIMEOUT_MS: '1500',
    RECONCILE_BASE_MS: '200',
    WORKER_INTERVAL_MS: '100',
  };
}
