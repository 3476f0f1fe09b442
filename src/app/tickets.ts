// Tickets: issue for a confirmed booking, list, QR images, check-in at the gate.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import QRCode from 'qrcode';
import { DomainError, notFound } from '../domain/errors.js';
import { showScopedId } from '../domain/ids.js';
import type { Database } from '../db/client.js';
import { findBooking, findBookings } from '../db/bookings.js';
import * as tickets from '../db/tickets.js';
import type { Principal } from '../auth/tokens.js';
import type { Context } from './context.js';

/**
 * Outbox handler for a batch: the tickets of every booking among `tasks` that is
 * confirmed, and every task done, in one statement (src/db/tickets.ts
 * issueTicketsAndFinish). Three statements for the batch, however many bookings:
 * one ticket task at a time cost three commits a booking, on the same pool and
 * the same disk as the sale itself.
 */
/** `db`: the inventory database the tasks were leased from (their bookings are there too). */
export async function issueTicketsInBatch(ctx: Context, db: Database, tasks: { outboxId: number; bookingId: string }[]): Promise<number> {
  if (tasks.length === 0) return 0;
  const confirmed = (await findBookings(db, [...new Set(tasks.map((t) => t.bookingId))])).filter((b) => b.status === 'confirmed');
  const rows = await Promise.all(confirmed.flatMap((booking) => booking.seats.map(async (seat) => {
    const id = showScopedId('tkt', booking.show_id);
    return { id, bookingId: booking.booking_id, showId: booking.show_id, seat, code: await ctx.tickets.sign({ ticketId: id, showId: booking.show_id, seat }), qrKey: randomBytes(24).toString('base64url') };
  })));
  return tickets.issueTicketsAndFinish(db, rows, tasks.map((t) => t.outboxId));
}

export interface TicketView {
  ticket_id: string;
  seat: string;
  code: string;
  qr_svg_url: string;
  qr_png_url: string;
}

export async function listTickets(ctx: Context, caller: Principal, bookingId: string): Promise<{ tickets: TicketView[] }> {
  const { db, found: booking } = await ctx.inventory.findRecord(bookingId, (d) => findBooking(d, bookingId));
  if (!booking || booking.user_id !== caller.userId) throw notFound('booking');
  if (booking.status !== 'confirmed') return { tickets: [] };
  const rows = await tickets.ticketsOfBooking(db, bookingId);
  return {
    tickets: rows.filter((t) => t.status === 'valid').map((t) => ({
      ticket_id: t.ticket_id,
      seat: t.seat,
      code: t.code,
      qr_svg_url: `/v1/tickets/${t.ticket_id}/qr.svg?key=${t.qr_key}`,
      qr_png_url: `/v1/tickets/${t.ticket_id}/qr.png?key=${t.qr_key}`,
    })),
  };
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The QR image of a valid ticket's code, for the holder of its capability key or its owner. */
export async function ticketQr(ctx: Context, ticketId: string, access: { key?: string; caller?: Principal | null }, format: 'svg' | 'png'): Promise<Buffer | string> {
  const { found: t } = await ctx.inventory.findRecord(ticketId, (db) => tickets.findTicket(db, ticketId));
  const allowed = t && ((access.key && sameSecret(access.key, t.qr_key)) || access.caller?.userId === t.user_id);
  if (!t || !allowed) throw notFound('ticket');
  // A cancelled booking's seat may be sold again: its old image must not get anyone to the gate.
  if (t.status === 'void' || t.show_cancelled) throw new DomainError('TICKET_VOID', 'this ticket belongs to a cancelled booking or show');
  return format === 'svg'
    ? QRCode.toString(t.code, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })
    : QRCode.toBuffer(t.code, { type: 'png', errorCorrectionLevel: 'M', margin: 2, scale: 6 });
}

/** Marks a ticket used, once; a cancelled booking's ticket is void. */
export async function checkIn(ctx: Context, code: string) {
  const claims = await ctx.tickets.verify(code);
  if (!claims) throw new DomainError('TICKET_INVALID', 'this code does not verify');
  // The signed code names its show: the gate needs no other lookup to find the shard.
  const db = await ctx.inventory.ofShow(claims.showId);
  const at = await tickets.checkIn(db, claims.ticketId);
  if (at) return { ticket_id: claims.ticketId, show_id: claims.showId, seat: claims.seat, checked_in_at: at.toISOString() };
  const t = await tickets.findTicket(db, claims.ticketId);
  if (!t) throw new DomainError('TICKET_INVALID', 'no such ticket');
  if (t.status === 'void' || t.show_cancelled) throw new DomainError('TICKET_VOID', 'this ticket belongs to a cancelled booking or show');
  throw new DomainError('ALREADY_CHECKED_IN', 'this ticket has already been checked in', { checked_in_at: t.checked_in_at!.toISOString() });
}
