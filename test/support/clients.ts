// Clients that reach the service from other loopback addresses (127.0.0.0/8 is
// all loopback on Linux), so the service counts them as different clients.
import { randomBytes } from 'node:crypto';
import { Agent } from 'undici';
import { Redis } from 'ioredis';
import { HttpClient, type HttpAnswer } from './http.js';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const agents: Agent[] = [];

/** An HTTP client whose connections come from `address` (e.g. 127.0.0.2). */
export function clientFrom(baseUrl: string, address: string): HttpClient {
  const agent = new Agent({ connections: 128, keepAliveTimeout: 10_000, localAddress: address });
  agents.push(agent);
  return new HttpClient(baseUrl, agent);
}

export async function closeClients(): Promise<void> {
  await Promise.all(agents.splice(0).map((a) => a.close()));
}

/** Runs `n` requests, at most `concurrency` at a time; the answers in order. */
export async function fire(n: number, concurrency: number, one: (i: number) => Promise<HttpAnswer>): Promise<HttpAnswer[]> {
  const answers: HttpAnswer[] = new Array(n);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, async () => {
    while (next < n) {
      const i = next++;
      answers[i] = await one(i);
    }
  }));
  return answers;
}

export function countStatuses(answers: readonly HttpAnswer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1;
  return counts;
}

/** A Redis key prefix of its own per test run, and a way to delete its keys afterwards. */
export function redisPrefix(): { prefix: string; cleanUp(): Promise<number> } {
  const prefix = `bo_test:${randomBytes(6).toString('hex')}`;
  return {
    prefix,
    async cleanUp() {
      const redis = new Redis(REDIS_URL);
      try {
        let deleted = 0;
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
          cursor = next;
          if (keys.length) deleted += await redis.del(...keys);
        } while (cursor !== '0');
        return deleted;
      } finally {
        redis.disconnect();
      }
    },
  };
}
