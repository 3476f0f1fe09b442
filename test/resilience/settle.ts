// Waiting until payments settle: nothing pending, open, leased or paying.
import type pg from 'pg';
import { sleep } from './client.js';

export interface OpenWork {
  pending_bookings: number;
  open_attempts: number;
  outbox_open: number;
  pending_refunds: number;
  unprocessed_webhooks: number;
  paying_seats: number;
  paying_holds: number;
}

export async function openWork(db: pg.Pool): Promise<OpenWork> {
  const r = await db.query<Record<keyof OpenWork, string>>(`
    select (select count(*) from bookings where status = 'pending') as pending_bookings,
           (select count(*) from payment_attempts where status in ('created', 'unknown')) as open_attempts,
           (select count(*) from outbox where done_at is null) as outbox_open,
           (select count(*) from refunds where status = 'pending') as pending_refunds,
           (select count(*) from webhook_events where processed_at is null) as unprocessed_webhooks,
           (select count(*) from show_seats where status = 'paying') as paying_seats,
           (select count(*) from holds where status = 'paying') as paying_holds`);
  const row = r.rows[0]!;
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)])) as unknown as OpenWork;
}

/**
 * Waits until nothing is left open: no pending booking, no attempt without a
 * definitive outcome, the outbox empty (tickets issued, refunds sent), every
 * recorded webhook applied, and the simulator with no webhook left to send.
 */
export async function waitSettled(db: pg.Pool, timeoutMs: number, simIdle: () => Promise<boolean>, log?: (s: string) => void): Promise<{ settled: boolean; ms: number; last: OpenWork }> {
  const started = Date.now();
  let last = await openWork(db);
  let lastLog = started;
  for (;;) {
    if (log && Date.now() - lastLog >= 5000) {
      lastLog = Date.now();
      let outbox = '';
      if (last.outbox_open > 0) {
        const r = await db.query(`select topic, count(*) as n, max(attempts) as max_attempts, count(*) filter (where lease_until > now()) as leased
                                    from outbox where done_at is null group by topic order by topic`);
        outbox = ` outbox: ${r.rows.map((x) => `${x.topic} ${x.n} (leased ${x.leased}, max attempts ${x.max_attempts})`).join(', ')}`;
      }
      log(`settling for ${lastLog - started} ms: ${JSON.stringify(last)}, simulator idle: ${await simIdle()}${outbox}`);
    }
    const quiet = last.pending_bookings === 0 && last.open_attempts === 0 && last.outbox_open === 0 && last.pending_refunds === 0
      && last.unprocessed_webhooks === 0 && (await simIdle());
    if (quiet) {
      // Once more after a pause: a webhook sent just now may still be on its way in.
      await sleep(500);
      last = await openWork(db);
      if (last.pending_bookings === 0 && last.open_attempts === 0 && last.outbox_open === 0 && last.unprocessed_webhooks === 0 && (await simIdle())) {
        return { settled: true, ms: Date.now() - started, last };
      }
    }
    if (Date.now() - started > timeoutMs) return { settled: false, ms: Date.now() - started, last };
    await sleep(250);
    last = await openWork(db);
  }
}
