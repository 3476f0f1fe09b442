// Tickets: issue for a confirmed booking, list, QR images, check-in at the gate.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import QRCode from 'qrcode';
import { DomainError, notFound } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { findBooking } from '../db/bookings.js';
import * as tickets from '../db/tickets.js';
import type { Principal } from '../auth/tokens.js';
import type { Context } from './context.js';

/** Outbox handler: one ticket per seat of a confirmed booking; repeating it adds nothing. */
export async function issueTickets(ctx: Context, bookingId: string): Promise<void> {
  const booking = await findBooking(ctx.db, bookingId);
  if (!booking || booking.status !== 'confirmed') return;
  const rows = await Promise.all(booking.seats.map(async (seat) => {
    const id = newId('tkt');
    return { id, showId: booking.show_id, seat, code: await ctx.tickets.sign({ ticketId: id, showId: booking.show_id, seat }), qrKey: randomBytes(24).toString('base64url') };
  }));
  // Written only while the booking is still confirmed, under its lock (see issueConfirmedTickets).
  await tickets.issueConfirmedTickets(ctx.db, bookingId, rows);
}

export interface TicketView {
  ticket_id: string;
  seat: string;
  code: string;
  qr_svg_url: string;
  qr_png_url: string;
}

export async function listTickets(ctx: Context, caller: Principal, bookingId: string): Promise<{ tickets: TicketView[] }> {
  const booking = await findBooking(ctx.db, bookingId);
  if (!booking || booking.user_id !== caller.userId) throw notFound('booking');
  if (booking.status !== 'confirmed') return { tickets: [] };
  const rows = await tickets.ticketsOfBooking(ctx.db, bookingId);
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
  const t = await tickets.findTicket(ctx.db, ticketId);
  const allowed = t && ((access.key && sameSecret(access.key, t.qr_key)) || access.caller?.userId === t.user_id);
  if (!t || !allowed) throw notFound('ticket');
  // A cancelled booking's seat may be sold again: its old image must not get anyone to the gate.
  if (t.status === 'void') throw new DomainError('TICKET_VOID', 'this ticket belongs to a cancelled booking');
  return format === 'svg'
    ? QRCode.toString(t.code, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })
    : QRCode.toBuffer(t.code, { type: 'png', errorCorrectionLevel: 'M', margin: 2, scale: 6 });
}

/** Marks a ticket used, once; a cancelled booking's ticket is void. */
export async function checkIn(ctx: Context, code: string) {
  const claims = await ctx.tickets.verify(code);
  if (!claims) throw new DomainError('TICKET_INVALID', 'this code does not verify');
  const at = await tickets.checkIn(ctx.db, claims.ticketId);
  if (at) return { ticket_id: claims.ticketId, show_id: claims.showId, seat: claims.seat, checked_in_at: at.toISOString() };
  const t = await tickets.findTicket(ctx.db, claims.ticketId);
  if (!t) throw new DomainError('TICKET_INVALID', 'no such ticket');
  if (t.status === 'void') throw new DomainError('TICKET_VOID', 'this ticket belongs to a cancelled booking');
  throw new DomainError('ALREADY_CHECKED_IN', 'this ticket has already been checked in', { checked_in_at: t.checked_in_at!.toISOString() });
}
