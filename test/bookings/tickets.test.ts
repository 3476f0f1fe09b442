// Tickets (API.md "Tickets and check-in"): issued asynchronously after
// confirmation, one per seat; each `code` is a compact EdDSA JWS that verifies
// offline against /v1/tickets/jwks.json and names ticket, show and seat; the QR
// images behind the capability URLs decode back to exactly `code`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { Resvg } from '@resvg/resvg-js';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import {
  closeService, confirmedBooking, expectProblem, expectStatus, holdSeats, newKey, postBooking, retrying, sleep, startService, waitForTickets,
  type TicketView,
} from './helpers.js';

/** GET as raw bytes, with no header unless given (a browser's <img>). */
async function getBytes(url: string, headers: Record<string, string> = {}) {
  const res = await request(url, { method: 'GET', headers });
  const bytes = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, type: String(res.headers['content-type'] ?? ''), bytes };
}

// jsqr is CommonJS: its function is both module.exports and .default; .default types under NodeNext.
const jsQR = jsQRModule.default;

function decodePng(png: Buffer): string | null {
  const img = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.length), img.width, img.height)?.data ?? null;
}

function decodeSvg(svg: string): string | null {
  const png = new Resvg(svg, { fitTo: { mode: 'width', value: 600 }, background: 'white' }).render().asPng();
  return decodePng(Buffer.from(png));
}

describe('tickets', () => {
  let t: TestService;
  let showId: string;
  let seats: string[];
  let alice: Buyer;
  let bob: Buyer;
  let booking: { booking_id: string; hold_id: string };
  let tickets: TicketView[];
  let booked: string[];

  beforeAll(async () => {
    t = await startService({ payments: {} });
    ({ showId, seats } = await retrying('creating the show', () => createShow(t, { rows: 2, seatsPerRow: 10 })));
    [alice, bob] = (await retrying('registering buyers', () => registerBuyers(t, 2))) as [Buyer, Buyer];
    booked = seats.slice(0, 3);
    booking = await confirmedBooking(t, showId, booked, alice.token);
  });
  afterAll(async () => { await closeService(t); });

  it('lists nothing or the tickets at first, then one ticket per seat within a few seconds', async () => {
    const early = await t.http.get(`/v1/bookings/${booking.booking_id}/tickets`, alice.token);
    expectStatus(early, 200);
    expect(Array.isArray(early.body.tickets)).toBe(true);
    expect([0, booked.length]).toContain(early.body.tickets.length);
    tickets = await waitForTickets(t, booking.booking_id, booked.length, alice.token);
    expect(tickets.map((x) => x.seat).sort()).toEqual([...booked].sort());
    expect(new Set(tickets.map((x) => x.ticket_id)).size).toBe(booked.length);
    expect(new Set(tickets.map((x) => x.code)).size).toBe(booked.length);
    // Each ticket's own capability URLs (relative, under the ticket), with a key of its own.
    for (const x of tickets) {
      expect(x.qr_png_url).toMatch(new RegExp(`^/v1/tickets/${x.ticket_id}/qr\\.png\\?key=[^&]{16,}$`));
      expect(x.qr_svg_url).toBe(x.qr_png_url.replace('/qr.png?', '/qr.svg?'));
    }
    expect(new Set(tickets.map((x) => new URL(x.qr_png_url, t.baseUrl).searchParams.get('key'))).size).toBe(booked.length);
    // Issuing is idempotent: still exactly one ticket per seat a moment later.
    await sleep(300);
    const later = await t.http.get(`/v1/bookings/${booking.booking_id}/tickets`, alice.token);
    expect(later.body.tickets).toHaveLength(booked.length);
  });

  it('every code verifies against the published key set (EdDSA) and names ticket, show and seat', async () => {
    const jwksAnswer = await t.http.get('/v1/tickets/jwks.json');
    expectStatus(jwksAnswer, 200);
    const jwks = jwksAnswer.body as JSONWebKeySet;
    expect(jwks.keys.length).toBeGreaterThanOrEqual(1);
    for (const k of jwks.keys) {
      expect(k.kid, 'every published key has a kid').toBeTruthy();
      expect(k.d, 'no private part is published').toBeUndefined();
    }
    const local = createLocalJWKSet(jwks);
    const remote = createRemoteJWKSet(new URL(`${t.baseUrl}/v1/tickets/jwks.json`));
    for (const x of tickets) {
      expect(x.code.split('.')).toHaveLength(3);
      const header = decodeProtectedHeader(x.code);
      expect(header.alg).toBe('EdDSA');
      expect(jwks.keys.map((k) => k.kid)).toContain(header.kid);
      for (const keySet of [local, remote]) {
        const { payload } = await jwtVerify(x.code, keySet, { algorithms: ['EdDSA'] });
        expect(payload.sub).toBe(x.ticket_id);
        const values = Object.values(payload);
        expect(values, 'the payload names the show').toContain(showId);
        expect(values, 'the payload names the seat').toContain(x.seat);
      }
    }
    // A code is not accepted under another algorithm family.
    await expect(jwtVerify(tickets[0]!.code, local, { algorithms: ['ES256'] })).rejects.toThrow();
  });

  it('the PNG behind the capability URL (no header at all) decodes to exactly the code', async () => {
    for (const x of tickets) {
      const png = await getBytes(`${t.baseUrl}${x.qr_png_url}`);
      expect(png.status).toBe(200);
      expect(png.type).toMatch(/^image\/png/);
      expect(decodePng(png.bytes)).toBe(x.code);
    }
  });

  it('the SVG behind the capability URL renders (resvg) and decodes to exactly the code', async () => {
    for (const x of tickets) {
      const svg = await getBytes(`${t.baseUrl}${x.qr_svg_url}`);
      expect(svg.status).toBe(200);
      expect(svg.type).toMatch(/^image\/svg\+xml/);
      const text = svg.bytes.toString('utf8');
      expect(text).toMatch(/<svg[\s>]/);
      expect(decodeSvg(text)).toBe(x.code);
    }
  });

  it('a wrong or missing key answers 404; the owner token without a key works, another user does not', async () => {
    const x = tickets[0]!;
    const y = tickets[1]!;
    const base = `${t.baseUrl}/v1/tickets/${x.ticket_id}`;
    const key = new URL(x.qr_png_url, t.baseUrl).searchParams.get('key')!;
    expect(key.length).toBeGreaterThanOrEqual(16);
    const yKey = new URL(y.qr_png_url, t.baseUrl).searchParams.get('key')!;
    const flipped = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
    for (const format of ['png', 'svg']) {
      for (const q of [`?key=${flipped}`, `?key=${yKey}`, '?key=', '']) {
        const r = await t.http.get(`/v1/tickets/${x.ticket_id}/qr.${format}${q}`);
        expectProblem(r, 404, 'NOT_FOUND');
      }
      // Another user's token (with no key, or a wrong one) is not the owner's.
      expectProblem(await t.http.get(`/v1/tickets/${x.ticket_id}/qr.${format}`, bob.token), 404, 'NOT_FOUND');
      expectProblem(await t.http.get(`/v1/tickets/${x.ticket_id}/qr.${format}?key=${flipped}`, bob.token), 404, 'NOT_FOUND');
    }
    const owner = await getBytes(`${base}/qr.png`, { authorization: `Bearer ${alice.token}` });
    expect(owner.status).toBe(200);
    expect(decodePng(owner.bytes)).toBe(x.code);
    const ownerSvg = await getBytes(`${base}/qr.svg`, { authorization: `Bearer ${alice.token}` });
    expect(ownerSvg.status).toBe(200);
    expect(decodeSvg(ownerSvg.bytes.toString('utf8'))).toBe(x.code);
    expectProblem(await t.http.get(`/v1/tickets/tkt_nope/qr.png?key=${key}`), 404, 'NOT_FOUND');
  });

  it("a booking that is not confirmed lists no tickets; someone else's booking is 404", async () => {
    const holdId = await holdSeats(t, showId, [seats[5]!], alice.token);
    const failed = await postBooking(t, { hold_id: holdId, payment_method: 'pm_card_declined' }, alice.token, newKey('declined'));
    expect(failed.body.status).toBe('failed');
    const empty = await t.http.get(`/v1/bookings/${failed.body.booking_id}/tickets`, alice.token);
    expectStatus(empty, 200);
    expect(empty.body).toEqual({ tickets: [] });

    expectProblem(await t.http.get(`/v1/bookings/${booking.booking_id}/tickets`, bob.token), 404, 'NOT_FOUND');
    expectProblem(await t.http.get(`/v1/bookings/${failed.body.booking_id}/tickets`, bob.token), 404, 'NOT_FOUND');
    expectProblem(await t.http.get('/v1/bookings/bkg_nope/tickets', alice.token), 404, 'NOT_FOUND');
    expectProblem(await t.http.get(`/v1/bookings/${booking.booking_id}/tickets`), 401, 'UNAUTHENTICATED');
  });

  it("a cancelled booking's QR images answer 410 TICKET_VOID, by key and by the owner's token; a wrong key stays 404", async () => {
    const b = await confirmedBooking(t, showId, [seats[7]!], alice.token);
    const [x] = await waitForTickets(t, b.booking_id, 1, alice.token);
    for (const url of [x!.qr_svg_url, x!.qr_png_url]) expect((await getBytes(`${t.baseUrl}${url}`)).status).toBe(200);
    expectStatus(await t.http.post(`/v1/bookings/${b.booking_id}/cancel`, {}, alice.token), 200);
    for (const format of ['svg', 'png'] as const) {
      const url = format === 'svg' ? x!.qr_svg_url : x!.qr_png_url;
      expectProblem(await t.http.get(url), 410, 'TICKET_VOID');
      expectProblem(await t.http.get(`/v1/tickets/${x!.ticket_id}/qr.${format}`, alice.token), 410, 'TICKET_VOID');
      // Void is only told to someone entitled to the ticket.
      expectProblem(await t.http.get(`/v1/tickets/${x!.ticket_id}/qr.${format}?key=wrong-key-wrong-key`), 404, 'NOT_FOUND');
      expectProblem(await t.http.get(`/v1/tickets/${x!.ticket_id}/qr.${format}`, bob.token), 404, 'NOT_FOUND');
    }
  });

  it('a cancelled booking lists no tickets', async () => {
    const b = await confirmedBooking(t, showId, [seats[6]!], alice.token);
    await waitForTickets(t, b.booking_id, 1, alice.token);
    const c = await t.http.post(`/v1/bookings/${b.booking_id}/cancel`, {}, alice.token);
    expectStatus(c, 200);
    const r = await t.http.get(`/v1/bookings/${b.booking_id}/tickets`, alice.token);
    expectStatus(r, 200);
    expect(r.body).toEqual({ tickets: [] });
  });
});
