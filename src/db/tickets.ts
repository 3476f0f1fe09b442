// Tickets: issue once per seat of a confirmed booking, void on cancellation,
// check in once.
import type { Queryable } from './client.js';

export interface TicketRow {
  ticket_id: string;
  booking_id: string;
  show_id: string;
  seat: string;
  code: string;
  qr_key: string;
  status: 'valid' | 'void';
  checked_in_at: Date | null;
  user_id: string;
  /** The ticket's show was cancelled: the ticket is void whatever its own row says yet. */
  show_cancelled: boolean;
}

const TICKET = `
  select t.id as ticket_id, t.booking_id, t.show_id, t.seat_id as seat, t.code, t.qr_key, t.status, t.checked_in_at, b.user_id,
         exists (select 1 from show_cancellations c where c.show_id = t.show_id) as show_cancelled
    from tickets t join bookings b on b.id = t.booking_id`;

/**
 * The tickets of several bookings, and their outbox tasks done, in one statement
 * (one commit for a whole batch): each ticket is written only while its booking is
 * confirmed, under a share lock on its row, so a cancellation (which locks the row
 * for update first) either ends before, and nothing is issued, or waits until the
 * tickets exist, then voids them; a seat that has its ticket already is left
 * alone. A failure writes nothing and leaves every task to be retried. Returns
 * how many tickets were written.
 */
export async function issueTicketsAndFinish(
  db: Queryable,
  rows: { id: string; bookingId: string; showId: string; seat: string; code: string; qrKey: string }[],
  outboxIds: number[],
): Promise<number> {
  const r = await db.query<{ issued: number }>(
    `with issued as (
       insert into tickets (id, booking_id, show_id, seat_id, code, qr_key, status)
       select t.id, t.booking_id, t.show_id, t.seat_id, t.code, t.qr_key, 'valid'
         from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) as t(id, booking_id, show_id, seat_id, code, qr_key)
        where exists (select 1 from bookings b where b.id = t.booking_id and b.status = 'confirmed' for share of b)
       on conflict (booking_id, seat_id) do nothing
       returning 1
     ), done as (
       update outbox set done_at = now(), lease_until = null where id = any($7::bigint[])
     )
     select count(*)::int as issued from issued`,
    [rows.map((r) => r.id), rows.map((r) => r.bookingId), rows.map((r) => r.showId), rows.map((r) => r.seat), rows.map((r) => r.code), rows.map((r) => r.qrKey), outboxIds],
  );
  return r.rows[0]!.issued;
}

export async function ticketsOfBooking(db: Queryable, bookingId: string): Promise<TicketRow[]> {
  return (await db.query<TicketRow>(`${TICKET} where t.booking_id = $1 order by t.seat_id`, [bookingId])).rows;
}

export async function findTicket(db: Queryable, id: string): Promise<TicketRow | null> {
  return (await db.query<TicketRow>(`${TICKET} where t.id = $1`, [id])).rows[0] ?? null;
}

export async function voidTickets(tx: Queryable, bookingId: string): Promise<void> {
  await tx.query(`update tickets set status = 'void' where booking_id = $1`, [bookingId]);
}

/** Checks a valid ticket of a show not cancelled in, once: the one conditional statement that decides two gates scanning together. */
export async function checkIn(db: Queryable, ticketId: string): Promise<Date | null> {
  const r = await db.query<{ checked_in_at: Date }>(
    `update tickets set checked_in_at = bo_now()
      where id = $1 and status = 'valid' and checked_in_at is null
        and not exists (select 1 from show_cancellations c where c.show_id = tickets.show_id)
     returning checked_in_at`,
    [ticketId],
  );
  return r.rows[0]?.checked_in_at ?? null;
}
