// The buyers' HTTP client: a request that gives up while it waits for a connection
// costs no connection. Handed to undici with its AbortSignal, each such request was
// given a connection at its turn only to destroy it (one TCP connection opened and
// closed per timeout: in a cinema burst the rehearsal's CPU went to that, and the
// service's listen queue filled with connections closed before it accepted them).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuyerHttp, Recorder } from '@boxoffice/rehearsal';

let server: http.Server;
let origin: string;
let connections = 0;
beforeAll(async () => {
  // Every answer takes 300 ms: one connection is busy that long.
  server = http.createServer((_req, res) => { setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), 300); });
  server.on('connection', () => { connections++; });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('BuyerHttp', () => {
  it('gives up on a request still waiting for a connection without opening or closing one', async () => {
    const rec = new Recorder();
    const client = new BuyerHttp(origin, 1, rec);
    try {
      const first = client.send('map', 'GET', '/', { timeoutMs: 5000 });
      const impatient = Array.from({ length: 4 }, () => client.send('map', 'GET', '/', { timeoutMs: 100 }));
      expect(await Promise.all(impatient)).toEqual([null, null, null, null]);
      expect((await first)?.status).toBe(200);
      // Queued behind whatever the impatient ones left: served on the same connection.
      expect((await client.send('map', 'GET', '/', { timeoutMs: 5000 }))?.status).toBe(200);
      expect(rec.totals.timeouts).toBe(4);
      expect(rec.statuses.get('map timeout')).toBe(4);
      expect(connections).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('counts a request the server answers too late as a timeout (its give-up timer aborts it), and one answered in time as answered', async () => {
    const rec = new Recorder();
    const client = new BuyerHttp(origin, 2, rec);
    try {
      expect((await client.send('map', 'GET', '/', { timeoutMs: 5000 }))?.status).toBe(200);
      const t0 = performance.now();
      expect(await client.send('map', 'GET', '/', { timeoutMs: 150 })).toBeNull();
      expect(performance.now() - t0).toBeLessThan(290);
      expect(rec.totals.timeouts).toBe(1);
      expect(rec.statuses.get('map timeout')).toBe(1);
    } finally {
      await client.close();
    }
  });
});
