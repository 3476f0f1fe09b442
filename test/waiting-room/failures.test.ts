// The room when its dependencies fail. The seat database stopped: queue status,
// joins and admits still answer (rules from memory, queue from Redis). Redis
// stopped (a private redis-server this test starts and kills, never the shared
// one): the room fails closed with 503 OVERLOADED and Retry-After, or, with
// WAITING_ROOM_FAIL_OPEN=1, admits whoever asks; admissions already given keep
// working either way, since the gate never asks Redis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import pg from 'pg';
import { startTestService, type TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { redisPrefix } from '../support/clients.js';
import { ADMIN_URL } from '../support/database.js';
import { expectProblem } from '../support/problems.js';
import { until } from '../bookings/helpers.js';
import { joinAndAdmit, roomConfig } from './helpers.js';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function startRedis(port: number): Promise<ChildProcess> {
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  await until('private redis-server', async () => new Promise<boolean>((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(true)); // the port is taken: redis listens
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(false)));
  }), 10_000, 50);
  return proc;
}

async function stopRedis(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGKILL');
  await exited;
}

describe('the seat database stopped', () => {
  const redis = redisPrefix();
  let t: TestService;
  let buyers: Buyer[];
  afterAll(async () => {
    await t?.close();
    await redis.cleanUp();
  });

  it('still answers queue status, joins and admits', async () => {
    t = await startTestService({ config: roomConfig(redis.prefix, { showRulesRefreshMs: 100 }) });
    const show = await createShow(t, { waiting_room: true });
    buyers = await registerBuyers(t, 2);
    await joinAndAdmit(t.http, show.showId, buyers[0]!.token);
    expect((await t.http.get(`/v1/shows/${show.showId}/queue`)).status).toBe(200);

    // Drop the service's database under it (its connections are terminated).
    const name = new URL(t.service.ctx.config.databaseUrl!).pathname.slice(1);
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`drop database ${name} with (force)`);
    await admin.end();
    expect((await t.http.get('/readyz')).status).toBe(503);
    await new Promise((r) => setTimeout(r, 500)); // the cached rules are now older than twice their refresh

    const status = await t.http.get(`/v1/shows/${show.showId}/queue`);
    expect(status.status, status.text).toBe(200);
    expect(status.body).toMatchObject({ serving: expect.any(Number), paused: false, sold_out: false });
    const { position } = await joinAndAdmit(t.http, show.showId, buyers[1]!.token, 5000);
    expect(position).toBe(2);
  }, 60_000);
});

describe('Redis stopped', () => {
  let port: number;
  let proc: ChildProcess;
  let closed: TestService;
  let open: TestService;
  let show: Awaited<ReturnType<typeof createShow>>;
  let buyers: Buyer[];

  beforeAll(async () => {
    port = await freePort();
    proc = await startRedis(port);
    const config = (failOpen: boolean) => ({ ...roomConfig('bo_test:private'), redisUrl: `redis://127.0.0.1:${port}`, waitingRoom: { ...roomConfig('bo_test:private').waitingRoom!, failOpen } });
    closed = await startTestService({ config: config(false) });
    show = await createShow(closed, { waiting_room: true });
    buyers = await registerBuyers(closed, 4);
    open = await startTestService({ config: { ...config(true) } });
  }, 60_000);
  afterAll(async () => {
    await open?.close();
    await closed?.close();
    if (proc) await stopRedis(proc);
  });

  it('fails closed: 503 OVERLOADED with Retry-After; admissions already given still buy', async () => {
    const { admission } = await joinAndAdmit(closed.http, show.showId, buyers[0]!.token);
    await stopRedis(proc);
    await new Promise((r) => setTimeout(r, 600)); // past the status's own short cache (the contract allows 2 s)
    for (const r of [
      await closed.http.post(`/v1/shows/${show.showId}/queue`, {}, buyers[1]!.token),
      await closed.http.get(`/v1/shows/${show.showId}/queue`),
    ]) {
      expectProblem(r, 503, 'OVERLOADED');
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    const queueToken = closed.service.ctx.room.tokens.issueQueue({ userId: buyers[1]!.userId, showId: show.showId, entryId: 'qe_x' });
    expectProblem(await closed.http.post(`/v1/shows/${show.showId}/queue/admit`, { queue_token: queueToken }, buyers[1]!.token), 503, 'OVERLOADED');
    const hold = await closed.http.post(`/v1/shows/${show.showId}/holds`, { seats: ['A1'] }, buyers[0]!.token, { 'admission-token': admission });
    expect(hold.status, hold.text).toBe(201);
    // A buyer without an admission is still refused: failing closed keeps the gate shut.
    expectProblem(await closed.http.post(`/v1/shows/${show.showId}/holds`, { seats: ['A2'] }, buyers[1]!.token), 403, 'QUEUE_REQUIRED');
  });

  it('fails open with WAITING_ROOM_FAIL_OPEN=1: everyone who asks is admitted', async () => {
    const openShow = await createShow(open, { waiting_room: true });
    const [b] = await registerBuyers(open, 1);
    const joined = await open.http.post(`/v1/shows/${openShow.showId}/queue`, {}, b!.token);
    expect(joined.status, joined.text).toBe(201);
    expect(joined.body.position).toBe(0);
    const admitted = await open.http.post(`/v1/shows/${openShow.showId}/queue/admit`, { queue_token: joined.body.queue_token }, b!.token);
    expect(admitted.status, admitted.text).toBe(200);
    const hold = await open.http.post(`/v1/shows/${openShow.showId}/holds`, { seats: ['A1'] }, b!.token, { 'admission-token': admitted.body.admission_token });
    expect(hold.status, hold.text).toBe(201);
  });

  it('recovers when Redis is back', async () => {
    proc = await startRedis(port);
    const r = await until('a join after Redis came back', async () => {
      const j = await closed.http.post(`/v1/shows/${show.showId}/queue`, {}, buyers[2]!.token);
      return j.status === 201 ? j : null;
    }, 15_000, 200);
    // The private Redis started empty: the queue starts again.
    expect(r.body.position).toBe(1);
  }, 30_000);
});
