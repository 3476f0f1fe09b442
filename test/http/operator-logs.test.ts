// Logs an operator can read (issue 7): one line per request at most, the
// business events at info under stable names, the payment simulator under its
// own name and request ids, and never a token, capability key, ticket code,
// Idempotency-Key or password on any line. The demo admin's password goes to the
// terminal, never to the logger.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, type TestService } from '../support/service.js';
import { createShow } from '../support/catalog.js';
import { closeService, expectStatus, newKey, retrying, startService, until } from '../bookings/helpers.js';
import { appLogging, createLogger } from '../../src/http/logging.js';
import { loadConfig } from '../../src/config.js';
import { openService } from '../../src/service.js';
import { announceAdmins } from '../../src/cli/admin.js';

interface LogLine {
  level: number;
  name?: string;
  msg: string;
  reqId?: string;
  event?: string;
  booking_id?: string;
  res?: { statusCode: number };
  req?: { method: string; url: string; remoteAddress?: string };
  responseTime?: number;
}

const INFO = 30;

function captured(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, lines };
}

describe('the logs of one buyer journey', () => {
  const service = captured();
  const simulator = captured();
  let t: TestService;
  const secrets: Record<string, string> = {};
  let bookingId: string;
  let showId: string;
  let seats: string[];
  let token: string;
  let requests = 0;
  const counted = <T>(answer: Promise<T>) => { requests++; return answer; };

  beforeAll(async () => {
    // Debug: the quietest requests (probes) and the simulator's own request lines show too.
    t = await startService({ payments: { logger: { level: 'debug', stream: simulator.stream } }, logger: { level: 'debug', stream: service.stream } });
    ({ showId, seats } = await retrying('creating the show', () => createShow(t, { rows: 1, seatsPerRow: 4 })));
    service.lines.length = 0;
    simulator.lines.length = 0;

    const password = `pw-${newKey('secret')}`;
    const email = `logs-${newKey('buyer')}@example.test`;
    const signUp = await counted(t.http.post('/v1/users', { email, password }));
    expectStatus(signUp, 201);
    token = signUp.body.token as string;
    expectStatus(await counted(t.http.get('/healthz')), 200);
    const hold = await counted(t.http.post(`/v1/shows/${showId}/holds`, { seats: [seats[0]] }, token));
    expectStatus(hold, 201);
    const idempotencyKey = newKey('idem');
    const booked = await counted(t.http.post('/v1/bookings', { hold_id: hold.body.hold_id, payment_method: 'pm_card_visa' }, token, { 'idempotency-key': idempotencyKey }));
    expectStatus(booked, 201);
    expect(booked.body.status).toBe('confirmed');
    bookingId = booked.body.booking_id as string;
    const tickets = await until('the ticket', async () => {
      const r = await counted(t.http.get(`/v1/bookings/${bookingId}/tickets`, token));
      expectStatus(r, 200);
      return r.body.tickets.length === 1 ? (r.body.tickets as { code: string; qr_svg_url: string }[]) : null;
    });
    const qrUrl = tickets[0]!.qr_svg_url;
    expectStatus(await counted(t.http.get(qrUrl)), 200);
    // The simulator's webhook for this payment, and its answer, are logged too: wait for them.
    await until('the webhook delivery', async () => service.lines.some((l) => l.includes('/v1/payments/webhook')));
    Object.assign(secrets, {
      token,
      'token signature': token.split('.')[2]!,
      'admin token signature': t.adminToken.split('.')[2]!,
      'QR key': new URL(qrUrl, t.baseUrl).searchParams.get('key')!,
      'ticket code': tickets[0]!.code,
      'Idempotency-Key': idempotencyKey,
      password,
      'admin password': ADMIN.password,
    });
  });
  afterAll(async () => { await closeService(t); });

  const parsed = () => service.lines.map((l) => JSON.parse(l) as LogLine);
  const events = (event: string, booking: string) => parsed().filter((l) => l.event === event && l.booking_id === booking);

  // First: the tests below read every line, these included.
  it('says at info when a payment is declined, its outcome unknown, a booking cancelled and its refund sent', async () => {
    const pay = async (seat: string, method: string) => {
      const hold = await counted(t.http.post(`/v1/shows/${showId}/holds`, { seats: [seat] }, token));
      expectStatus(hold, 201);
      const r = await counted(t.http.post('/v1/bookings', { hold_id: hold.body.hold_id, payment_method: method }, token, { 'idempotency-key': newKey('idem') }));
      return r.body.booking_id as string;
    };
    const declined = await pay(seats[1]!, 'pm_card_declined');
    expect(events('booking.failed', declined)).toMatchObject([{ level: INFO, reason: 'card_declined', amount: 1000 }]);

    const lost = await pay(seats[2]!, 'pm_card_timeout_succeeds');
    expect(events('payment.outcome_unknown', lost)).toMatchObject([{ level: INFO }]);
    await until('the reconciler confirming it', async () => events('booking.confirmed', lost).length === 1);

    expectStatus(await counted(t.http.post(`/v1/bookings/${lost}/cancel`, {}, token)), 200);
    expect(events('booking.cancelled', lost)).toMatchObject([{ level: INFO, refund_amount: 1000 }]);
    await until('the refund', async () => events('refund.sent', lost).length === 1);
    expect(events('refund.sent', lost)).toMatchObject([{ level: INFO, amount: 1000, reason: 'cancellation' }]);
  });

  it('says once, at info, that the booking was confirmed, with its show and amount', () => {
    const confirmed = events('booking.confirmed', bookingId);
    expect(confirmed).toHaveLength(1);
    expect(confirmed[0]).toMatchObject({ level: INFO, name: 'boxoffice', booking_id: bookingId, amount: 1000, currency: 'EUR', seats: 1 });
    expect(confirmed[0]).toHaveProperty('show_id');
  });

  it('carries no token, capability key, ticket code, Idempotency-Key or password on any line', () => {
    expect(Object.values(secrets).every((s) => s.length >= 8)).toBe(true);
    for (const line of [...service.lines, ...simulator.lines]) {
      for (const [what, secret] of Object.entries(secrets)) expect(line, `${what} on a log line`).not.toContain(secret);
      expect(line.toLowerCase()).not.toContain('bearer');
    }
  });

  it('writes one line per request, with method, redacted URL, status, time and client', () => {
    const requestLines = parsed().filter((l) => l.reqId !== undefined);
    const ids = requestLines.map((l) => l.reqId);
    expect(new Set(ids).size, 'a request id on two lines').toBe(ids.length);
    // Ours, and the simulator's webhook deliveries (at least one).
    expect(requestLines.length).toBeGreaterThan(requests);
    for (const l of requestLines) {
      expect(l.res?.statusCode).toBeGreaterThanOrEqual(200);
      expect(typeof l.responseTime).toBe('number');
      expect(l.req?.remoteAddress).toBe('127.0.0.1');
      expect(l.msg).toBe(`${l.req!.method} ${l.req!.url} ${l.res!.statusCode} ${l.responseTime} ms 127.0.0.1`);
    }
    expect(requestLines.find((l) => l.req!.url.includes('/qr.svg'))?.req?.url).toMatch(/\?key=\[redacted\]$/);
    expect(requestLines.find((l) => l.req!.url === '/healthz')?.level, 'a probe below info').toBeLessThan(INFO);
    expect(requestLines.find((l) => l.req!.url === '/v1/bookings')?.level).toBe(INFO);
  });

  it('the payment simulator logs under its own name and request ids', () => {
    const lines = simulator.lines.map((l) => JSON.parse(l) as LogLine);
    const requestLines = lines.filter((l) => l.reqId !== undefined);
    expect(requestLines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l.name).toBe('paysim');
    for (const l of requestLines) expect(l.reqId).toMatch(/^sim-\d+$/);
    expect(requestLines.map((l) => l.req?.url)).toContain('/v1/payment_intents');
  });
});

describe('request lines', () => {
  it('probes at debug, 4xx at info, 503 at warn, other 5xx at error, all on one line each', async () => {
    const { stream, lines } = captured();
    const app = Fastify({ ...appLogging(createLogger({ name: 'boxoffice', level: 'debug', stream })) });
    app.get('/healthz', async () => ({ status: 'ok' }));
    app.get('/broken', async (_req, reply) => reply.code(500).send({}));
    app.get('/later', async (_req, reply) => reply.code(503).send({}));
    for (const url of ['/healthz', '/nowhere?token=abc123secret', '/broken', '/later']) await app.inject({ method: 'GET', url });
    await app.close();
    const byUrl = new Map(lines.map((l) => JSON.parse(l) as LogLine).filter((l) => l.req).map((l) => [l.req!.url, l.level]));
    expect(Object.fromEntries(byUrl)).toEqual({ '/healthz': 20, '/nowhere?token=[redacted]': 30, '/broken': 50, '/later': 40 });
    expect(lines.join('\n')).not.toContain('abc123secret');
  });
});

describe('the demo admin credential', () => {
  it('goes to the terminal, never to the log', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'bo-logs-demo-'));
    const config = { ...loadConfig({}), dataDir, port: 0, seedDemo: false, stripeSecretKey: 'sk_test_sim', stripeApiUrl: 'http://127.0.0.1:9' };
    const service = await openService(config);
    try {
      const logged: string[] = [];
      const terminal: string[] = [];
      await announceAdmins(service.ctx, (m) => logged.push(m), (m) => terminal.push(m));
      const password = /admin password:\s+(\S+)/.exec(terminal.join('\n'))?.[1];
      expect(password, terminal.join('\n')).toBeTruthy();
      expect(logged.join('\n')).not.toContain(password);
      expect(logged.join('\n')).toMatch(/demo admin \S+ created/);
    } finally {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
