// One webhook attempt on the wire: a POST over kept-alive connections (node:http or
// node:https by the endpoint's scheme), the answer's body drained, its status
// returned. The global fetch does the same through WHATWG streams, an AbortSignal and
// a Request object per attempt, which made delivering webhooks a large share of the
// simulator's busy time in bench:bookings.
import http from 'node:http';
import https from 'node:https';

export class WebhookPoster {
  private readonly agents: { http: http.Agent; https: https.Agent };

  /** `connections`: sockets kept per endpoint (the sender's concurrency). */
  constructor(connections: number) {
    this.agents = {
      http: new http.Agent({ keepAlive: true, maxSockets: connections }),
      https: new https.Agent({ keepAlive: true, maxSockets: connections }),
    };
  }

  /** The endpoint's status; throws on a network failure, or when `signal` aborts (the attempt's timeout, or a stop). */
  post(url: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<number> {
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    const bytes = Buffer.from(body);
    return new Promise((resolve, reject) => {
      const req = (secure ? https : http).request(target, {
        method: 'POST',
        agent: secure ? this.agents.https : this.agents.http,
        headers: { ...headers, 'content-length': String(bytes.length) },
        signal,
      }, (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
        res.once('error', reject);
      });
      req.once('error', reject);
      req.end(bytes);
    });
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}
