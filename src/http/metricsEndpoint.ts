// Who may read /metrics, and the separate listener that serves it when
// METRICS_PORT is set. The figures tell anyone how a sale is going (bookings,
// refunds, backlog), so operators close them with METRICS_TOKEN or keep them on a
// port the public cannot reach.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { Context } from '../app/context.js';
import { problem, type ProblemAnswer } from './problem.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** True when the request may read the metrics: no token configured, or its bearer token is it (compared in constant time). */
export function scrapeAllowed(config: Readonly<Config>, authorization: string | undefined): boolean {
  if (!config.metricsToken) return true;
  const given = authorization ? /^Bearer\s+(\S+)$/i.exec(authorization)?.[1] : undefined;
  // Digests have one length, so the comparison takes as long whatever was sent.
  return given !== undefined && timingSafeEqual(digest(given), digest(config.metricsToken));
}

export const SCRAPE_REFUSED = 'a valid bearer token for /metrics (METRICS_TOKEN) is required';

/** The listener of METRICS_PORT: GET /metrics and nothing else. */
export class MetricsListener {
  private server: Server | null = null;

  constructor(private readonly ctx: Context, private readonly log: FastifyBaseLogger) {}

  async listen(host: string, port: number): Promise<AddressInfo> {
    const server = createServer((req, res) => {
      const send = (status: number, headers: Record<string, string>, body: string) =>
        res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) }).end(body);
      const refuse = (a: ProblemAnswer) => send(a.status, a.headers, JSON.stringify(a.body));
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'GET' || path !== '/metrics') return refuse(problem('NOT_FOUND', `no route ${req.method} ${path}; this port serves GET /metrics`));
      if (!scrapeAllowed(this.ctx.config, req.headers.authorization)) return refuse(problem('UNAUTHENTICATED', SCRAPE_REFUSED));
      const registry = this.ctx.metrics.registry;
      registry.metrics().then(
        (text) => send(200, { 'content-type': registry.contentType }, text),
        (err: unknown) => {
          this.log.error({ err }, 'metrics could not be collected');
          refuse(problem('INTERNAL', 'something went wrong on our side; it has been logged'));
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    return server.address() as AddressInfo;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    // A scraper's keep-alive connection would hold the close for its timeout.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }
}
