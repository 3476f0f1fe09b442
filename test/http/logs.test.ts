// Capability keys and tokens never reach a log line (API.md "Tickets", house
// rules): the service's own log output, at its most talkative level, is captured
// while QR URLs are fetched by key, requests carry bearer tokens, and a malformed
// request carries one too. Every request is still logged, with its path.
import net from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { closeService, confirmedBooking, expectStatus, retrying, startService, waitForTickets, type TicketView } from '../bookings/helpers.js';
import Fastify from 'fastify';
import { loggerOptions, redactUrl } from '../../src/http/logging.js';

const lines: string[] = [];
const capture = new Writable({
  write(chunk: Buffer, _encoding, done) {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});

describe('request logs', () => {
  let t: TestService;
  let alice: Buyer;
  let ticket: TicketView;
  let key: string;

  beforeAll(async () => {
    t = await startService({ payments: {}, logger: { level: 'trace', stream: capture } });
    const { showId, seats } = await retrying('creating the show', () => createShow(t, { rows: 1, seatsPerRow: 4 }));
    [alice] = (await retrying('registering buyers', () => registerBuyers(t, 1))) as [Buyer];
    const booking = await confirmedBooking(t, showId, [seats[0]!], alice.token);
    ticket = (await waitForTickets(t, booking.booking_id, 1, alice.token))[0]!;
    key = new URL(ticket.qr_svg_url, t.baseUrl).searchParams.get('key')!;
  });
  afterAll(async () => { await closeService(t); });

  it('never carry a QR key or a bearer token, and still log each request with its path', async () => {
    const before = lines.length;
    expectStatus(await t.http.get(ticket.qr_svg_url), 200);
    expectStatus(await t.http.get(ticket.qr_png_url), 200);
    // The key under another spelling of its name, which the query parser decodes the same way.
    expectStatus(await t.http.get(`/v1/tickets/${ticket.ticket_id}/qr.png?k%65y=${key}`), 200);
    expectStatus(await t.http.get(`/v1/tickets/${ticket.ticket_id}/qr.svg`, alice.token), 200);
    expectStatus(await t.http.get('/v1/bookings', alice.token), 200);
    expectStatus(await t.http.get(`/v1/no-such-route?key=${key}`, alice.token), 404);
    // A request the parser refuses, carrying a token: its raw bytes must not be logged either.
    await new Promise<void>((resolve) => {
      const s = net.connect(Number(new URL(t.baseUrl).port), '127.0.0.1', () =>
        s.end(`GET /v1/bookings?key=${key} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${alice.token}\r\nBad Header: y\r\n\r\n`));
      s.on('error', () => {});
      s.resume(); // read the answer, so the close is seen
      s.on('close', () => resolve());
    });
    const logged = lines.slice(before);

    const signature = alice.token.split('.')[2]!;
    const admin = t.adminToken.split('.')[2]!;
    for (const line of logged) {
      expect(line).not.toContain(key.slice(0, 12));
      expect(line).not.toContain(signature);
      expect(line).not.toContain(admin);
      expect(line).not.toContain('rawPacket');
      expect(line.toLowerCase()).not.toContain('bearer');
    }
    const urls = logged.map((l) => JSON.parse(l) as { req?: { url?: string; method?: string } }).flatMap((l) => (l.req?.url ? [l.req.url] : []));
    expect(urls).toEqual(expect.arrayContaining([
      `/v1/tickets/${ticket.ticket_id}/qr.svg?key=[redacted]`,
      `/v1/tickets/${ticket.ticket_id}/qr.png?key=[redacted]`,
      `/v1/tickets/${ticket.ticket_id}/qr.png?k%65y=[redacted]`,
      `/v1/tickets/${ticket.ticket_id}/qr.svg`,
      '/v1/bookings',
      '/v1/no-such-route?key=[redacted]',
    ]));
  });

  it('redactUrl keeps the path and the other parameters', () => {
    expect(redactUrl('/v1/shows?city=Bern&key=abc&date=2026-01-01')).toBe('/v1/shows?city=Bern&key=[redacted]&date=2026-01-01');
    expect(redactUrl('/v1/x?KEY=abc&key&token=t&access_token=u')).toBe('/v1/x?KEY=[redacted]&key=[redacted]&token=[redacted]&access_token=[redacted]');
    expect(redactUrl('/v1/x?%zz=1&k%65y=2')).toBe('/v1/x?%zz=1&k%65y=[redacted]');
    expect(redactUrl('/v1/tickets/t1/qr.svg')).toBe('/v1/tickets/t1/qr.svg');
  });

  it('headers logged by anything else lose their secrets', async () => {
    const out: string[] = [];
    const stream = new Writable({ write(chunk: Buffer, _e, done) { out.push(chunk.toString('utf8')); done(); } });
    const app = Fastify({ logger: loggerOptions({ level: 'info', stream }) });
    const headers = { authorization: 'Bearer secret-token-1', cookie: 'sid=secret-cookie-2', 'admission-token': 'secret-admission-3', accept: 'text/plain' };
    app.log.info({ headers }, 'top level');
    app.log.info({ req: { headers } }, 'under req');
    app.log.info({ request: { headers } }, 'under request');
    await app.close();
    expect(out).toHaveLength(3);
    for (const line of out) expect(line).not.toMatch(/secret-/);
    // Under `req` the request serializer keeps no header at all; elsewhere only the secrets go.
    expect(out[0]).toContain('text/plain');
    expect(out[2]).toContain('text/plain');
  });
});
