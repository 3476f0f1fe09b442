// Check-in at the gate (API.md "Tickets and check-in", DESIGN.md invariant 6):
// a ticket checks in at most once, also when gates scan it at the same moment;
// a code that does not verify is 400 TICKET_INVALID; a cancelled booking's ticket
// is 410 TICKET_VOID; only staff (or admin) may scan.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import type { HttpAnswer } from '../support/http.js';
import {
  closeService, confirmedBooking, expectProblem, expectStatus, retrying, staffUser, startService, waitForTickets, type TicketView,
} from './helpers.js';

const b64url = (s: string) => Buffer.from(s).toString('base64url');

describe('POST /v1/checkin', () => {
  let t: TestService;
  let showId: string;
  let seats: string[];
  let alice: Buyer;
  let bob: Buyer;
  let staff: Buyer;
  let tickets: TicketView[];
  let next = 0;
  const take = (n: number) => { const s = seats.slice(next, next + n); next += n; return s; };

  beforeAll(async () => {
    t = await startService({ payments: {} });
    ({ showId, seats } = await retrying('creating the show', () => createShow(t, { rows: 4, seatsPerRow: 20, per_user_limit: 60 })));
    [alice, bob] = (await retrying('registering buyers', () => registerBuyers(t, 2))) as [Buyer, Buyer];
    staff = await retrying('registering staff', () => staffUser(t));
    // 40 tickets in 4 bookings of 10 seats.
    const bookings = await Promise.all([0, 1, 2, 3].map(() => take(10)).map((s) => confirmedBooking(t, showId, s, alice.token)));
    tickets = (await Promise.all(bookings.map((b) => waitForTickets(t, b.booking_id, 10, alice.token)))).flat();
    expect(tickets).toHaveLength(40);
  });
  afterAll(async () => { await closeService(t); });

  /** Scans as staff, or with the given token (null: none at all). */
  const scan = (code: unknown, token: string | null = staff.token): Promise<HttpAnswer> => t.http.post('/v1/checkin', { code }, token ?? undefined);

  it('checks a ticket in the first time, then answers 409 ALREADY_CHECKED_IN with the first time', async () => {
    const x = tickets[0]!;
    const first = await scan(x.code);
    expectStatus(first, 200);
    expect(first.body).toEqual({ ticket_id: x.ticket_id, show_id: showId, seat: x.seat, checked_in_at: expect.any(String) });
    expect(first.body.checked_in_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]00:?00)$/);
    expect(Math.abs(Date.parse(first.body.checked_in_at) - Date.now())).toBeLessThan(120_000);
    for (let i = 0; i < 2; i++) {
      const again = await scan(x.code);
      expectProblem(again, 409, 'ALREADY_CHECKED_IN');
      expect(Date.parse(again.body.checked_in_at)).toBe(Date.parse(first.body.checked_in_at));
    }
  });

  it('three gates scanning one code at the same moment: exactly one 200, two 409 — for 30 tickets', async () => {
    const batch = tickets.slice(1, 31);
    const failures: string[] = [];
    for (const x of batch) {
      const answers = await Promise.all([scan(x.code), scan(x.code), scan(x.code)]);
      const ok = answers.filter((a) => a.status === 200);
      const dup = answers.filter((a) => a.status === 409 && a.body?.code === 'ALREADY_CHECKED_IN');
      if (ok.length !== 1 || dup.length !== 2) {
        failures.push(`${x.seat}: ${answers.map((a) => `${a.status} ${a.body?.code ?? ''}`).join(', ')}`);
        continue;
      }
      for (const d of dup) {
        if (Date.parse(d.body.checked_in_at) !== Date.parse(ok[0]!.body.checked_in_at)) {
          failures.push(`${x.seat}: 409 says ${d.body.checked_in_at}, the 200 said ${ok[0]!.body.checked_in_at}`);
        }
      }
      if (ok[0]!.body.ticket_id !== x.ticket_id || ok[0]!.body.seat !== x.seat) failures.push(`${x.seat}: 200 names ${JSON.stringify(ok[0]!.body)}`);
    }
    expect(failures).toEqual([]);
    const r = await t.service.ctx.db.query<{ n: string }>(
      'select count(*) as n from tickets where id = any($1::text[]) and checked_in_at is not null', [batch.map((x) => x.ticket_id)]);
    expect(Number(r.rows[0]!.n)).toBe(30);
  });

  it('answers 400 TICKET_INVALID for forged or garbage codes, and they do not use the real ticket up', async () => {
    const x = tickets[31]!;
    const [h, p, s] = x.code.split('.') as [string, string, string];
    const header = decodeProtectedHeader(x.code);
    const claims = decodeJwt(x.code);

    // 1. signature changed (a character in the middle, so the bytes really differ)
    const mid = Math.floor(s.length / 2);
    const badSig = `${h}.${p}.${s.slice(0, mid)}${s[mid] === 'A' ? 'B' : 'A'}${s.slice(mid + 1)}`;
    // 2. payload changed (another seat), original signature
    const otherSeat = `${h}.${b64url(JSON.stringify({ ...claims, seat: tickets[0]!.seat }))}.${s}`;
    // 3. the same claims and kid, signed by another Ed25519 key
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const otherKey = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'EdDSA', kid: header.kid }).sign(privateKey);
    // 4. alg "none"
    const none = `${b64url(JSON.stringify({ alg: 'none', kid: header.kid }))}.${p}.`;
    // 5. garbage
    const forged = [badSig, otherSeat, otherKey, none, 'garbage', 'a.b.c', `${h}.${p}`, `${x.code}x`];
    for (const code of forged) expectProblem(await scan(code), 400, 'TICKET_INVALID');

    const real = await scan(x.code);
    expectStatus(real, 200);
    expect(real.body.ticket_id).toBe(x.ticket_id);
  });

  it("answers 410 TICKET_VOID for a cancelled booking's ticket", async () => {
    const b = await confirmedBooking(t, showId, take(2), alice.token);
    const mine = await waitForTickets(t, b.booking_id, 2, alice.token);
    const c = await t.http.post(`/v1/bookings/${b.booking_id}/cancel`, {}, alice.token);
    expectStatus(c, 200);
    expect(c.body.status).toBe('cancelled');
    for (const x of mine) {
      expectProblem(await scan(x.code), 410, 'TICKET_VOID');
      expectProblem(await scan(x.code), 410, 'TICKET_VOID');
    }
  });

  it('only staff or admin may scan: a plain user is 403, no token 401', async () => {
    const x = tickets[32]!;
    expectProblem(await scan(x.code, bob.token), 403, 'FORBIDDEN');
    expectProblem(await scan(x.code, alice.token), 403, 'FORBIDDEN');
    expectProblem(await scan(x.code, null), 401, 'UNAUTHENTICATED');
    expectProblem(await scan(x.code, 'not-a-token'), 401, 'UNAUTHENTICATED');
    // None of those used the ticket up; an admin may scan too.
    const admin = await scan(x.code, t.adminToken);
    expectStatus(admin, 200);
    expect(admin.body.ticket_id).toBe(x.ticket_id);
  });
});
