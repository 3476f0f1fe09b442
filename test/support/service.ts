// Starts a real boxoffice instance listening on a random port, against its own
// PostgreSQL database (or PGlite in memory), for tests that speak HTTP to it.
import { loadConfig, type Config } from '../../src/config.js';
import { openService, type Service } from '../../src/service.js';
import { openPglite } from '../../src/db/client.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { HttpClient } from './http.js';

export const ADMIN = { email: 'admin@boxoffice.test', password: 'admin-password-1' };

export interface TestService {
  service: Service;
  baseUrl: string;
  http: HttpClient;
  adminToken: string;
  close(): Promise<void>;
}

export async function startTestService(
  opts: { pglite?: boolean; config?: Partial<Config>; sweeper?: boolean } = {},
): Promise<TestService> {
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
    ...opts.config,
  };
  const db = opts.pglite ? await openPglite(null) : undefined;
  const service = await openService(config, { db });
  if (opts.sweeper !== false) service.sweeper.start();
  await service.app.listen({ host: '127.0.0.1', port: 0 });
  const address = service.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  const baseUrl = `http://127.0.0.1:${address.port}`;
  const http = new HttpClient(baseUrl);
  const session = await http.post('/v1/sessions', ADMIN);
  if (session.status !== 200) throw new Error(`admin sign-in failed: ${session.status}`);
  return {
    service,
    baseUrl,
    http,
    adminToken: session.body.token as string,
    async close() {
      await service.close();
      if (db) await db.close();
      await database?.drop();
    },
  };
}
