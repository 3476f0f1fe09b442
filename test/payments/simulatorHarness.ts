// Test harness for the payment simulator (not a test file): a simulator on a
// random loopback port, the official Stripe SDK pointed at it, and a tiny
// webhook endpoint that records what it receives.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { buildSimulator, type Simulator, type SimulatorOptions } from '@boxoffice/paysim';

export const SECRET_KEY = 'sk_test_sim';
export const WEBHOOK_SECRET = 'whsec_sim';

export interface RunningSimulator {
  sim: Simulator;
  port: number;
  baseUrl: string;
  /** The SDK as the service configures it: no automatic retries. */
  stripe: Stripe;
  /** Another SDK client with a short timeout, for the lost-answer payment methods. */
  impatient(timeoutMs: number): Stripe;
  close(): Promise<void>;
}

function client(port: number, timeout: number, apiKey = SECRET_KEY): Stripe {
  return new Stripe(apiKey, { host: '127.0.0.1', port, protocol: 'http', maxNetworkRetries: 0, timeout, telemetry: false });
}

export async function startSimulator(opts: SimulatorOptions = {}): Promise<RunningSimulator> {
  const sim = await buildSimulator(opts);
  sim.start();
  await sim.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (sim.app.server.address() as AddressInfo).port;
  return {
    sim,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    stripe: client(port, 10_000),
    impatient: (timeoutMs) => client(port, timeoutMs),
    close: () => sim.close(),
  };
}

export { client as sdkClient };

export interface ReceivedWebhook {
  raw: string;
  headers: IncomingHttpHeaders;
  at: number;
}

export interface WebhookEndpoint {
  url: string;
  received: ReceivedWebhook[];
  /** Decides each answer's status; the default accepts everything. */
  answer: (hook: ReceivedWebhook, index: number) => number;
  /** Resolves once `count` deliveries have arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export async function startWebhookEndpoint(): Promise<WebhookEndpoint> {
  const received: ReceivedWebhook[] = [];
  let server: Server;
  const endpoint: WebhookEndpoint = {
    url: '',
    received,
    answer: () => 200,
    async waitFor(count, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} webhooks, got ${received.length}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return received.slice();
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hook = { raw: Buffer.concat(chunks).toString('utf8'), headers: req.headers, at: Date.now() };
      received.push(hook);
      res.statusCode = endpoint.answer(hook, received.length - 1);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;
  return endpoint;
}

/** Resolves to the error a promise rejects with; fails the test if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

export async function eventually(check: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
