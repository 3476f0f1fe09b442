// Ticket issuing in batches (src/workers/outboxRelay.ts, src/db/tickets.ts
// issueTicketsAndFinish): one pass issues the tickets of every confirmed booking
// among the leased tasks in three statements, none for a cancelled booking, no
// second ticket for a seat on a repeated task, and marks every task done.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../support/service.js';
import { createShow, registerBuyers, type Buyer } from '../support/catalog.js';
import { closeService, confirmedBooking, expectStatus, retrying, startService } from './helpers.js';
import { relayOutbox } from '../../src/workers/outboxRelay.js';

describe('ticket issuing in batches', () => {
  let t: TestService;
  let showId: string;
  let seats: string[];
  let alice: Buyer;

  beforeAll(async () => {
    // The simulator answers payments; no workers, so the test decides when tickets are issued.
    t = await startService({ payments: {}, workers: false });
    ({ showId, seats } = await retrying('creating the show', () => createShow(t, { rows: 2, seatsPerRow: 10 })));
    [alice] = (await retrying('registering a buyer', () => registerBuyers(t, 1))) as [Buyer];
  });
  afterAll(async () => { await closeService(t); });

  it('issues a batch in three statements: tickets for the confirmed, none for the cancelled, none twice', async () => {
    const db = t.service.ctx.db;
    const kept = await confirmedBooking(t, showId, seats.slice(0, 2), alice.token);
    const other = await confirmedBooking(t, showId, seats.slice(2, 5), alice.token);
    const cancelled = await confirmedBooking(t, showId, seats.slice(5, 6), alice.token);
    expectStatus(await t.http.post(`/v1/bookings/${cancelled.booking_id}/cancel`, {}, alice.token), 200);
    // At least once: the same booking's task twice.
    await db.query(`insert into outbox (topic, payload) values ('ticket.issue', $1)`, [JSON.stringify({ booking_id: kept.booking_id })]);
    const open = async () => Number((await db.query<{ n: string }>(`select count(*) as n from outbox where topic = 'ticket.issue' and done_at is null`)).rows[0]!.n);
    expect(await open()).toBe(4);

    // The pool as the relay sees it, counting statements (it runs no transaction).
    let statements = 0;
    const counted = new Proxy(db, {
      get(target, prop) {
        if (prop === 'query') return (text: string, params?: readonly unknown[]) => { statements++; return target.query(text, params); };
        const v = Reflect.get(target, prop) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const handled = await relayOutbox(t.service.ctx, counted, 'ticket.issue', { warn: () => {} });
    expect(handled).toBe(4);
    expect(statements).toBe(3); // lease, read the bookings, issue and finish
    expect(await open()).toBe(0);

    const issued = (await db.query<{ booking_id: string; seat_id: string }>(
      'select booking_id, seat_id from tickets where booking_id = any($1::text[]) order by booking_id, seat_id',
      [[kept.booking_id, other.booking_id, cancelled.booking_id]])).rows;
    const by = (id: string) => issued.filter((r) => r.booking_id === id).map((r) => r.seat_id).sort();
    expect(by(kept.booking_id)).toEqual(seats.slice(0, 2).sort());
    expect(by(other.booking_id)).toEqual(seats.slice(2, 5).sort());
    expect(by(cancelled.booking_id)).toEqual([]);

    // Run again over the same bookings: nothing new.
    await db.query(`insert into outbox (topic, payload) values ('ticket.issue', $1), ('ticket.issue', $2)`,
      [JSON.stringify({ booking_id: kept.booking_id }), JSON.stringify({ booking_id: other.booking_id })]);
    expect(await relayOutbox(t.service.ctx, counted, 'ticket.issue', { warn: () => {} })).toBe(2);
    expect(Number((await db.query<{ n: string }>('select count(*) as n from tickets where booking_id = any($1::text[])', [[kept.booking_id, other.booking_id]])).rows[0]!.n)).toBe(5);
    expect(await open()).toBe(0);
  });
});
