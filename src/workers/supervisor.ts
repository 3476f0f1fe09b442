// The background work of an instance: payment reconciliation, ticket issuing,
// refunds, leftover webhooks, hold statistics, waiting-list offers, expired Idempotency-Key answers. Each task has its own loop, so a
// slow provider call in one (a refund whose answer is lost) never holds up
// another (tickets). A loop runs one pass at a time; a failing pass is logged and
// the next one retries. Polling is the truth: any number of instances (or
// `npm run worker` processes) may run these loops side by side.
import type { Context } from '../app/context.js';
import { reconcilePayments } from './reconciler.js';
import { relayOutbox } from './outboxRelay.js';
import { applyLeftoverEvents } from '../app/webhooks.js';
import { sweepExpiredKeys } from '../app/bookings.js';
import { offerRound } from '../app/waitlist.js';
import { Loop, type Log } from '../loop.js';

export class Workers {
  private readonly loops: Loop[];

  constructor(ctx: Context, log: Log) {
    const every = ctx.config.workerIntervalMs;
    // Each loop's statements are counted under its own name (src/db/trips.ts).
    const as = (origin: string): Context => ({ ...ctx, db: ctx.db.as(origin) });
    const reconcile = as('reconcile');
    const tickets = as('tickets');
    const refunds = as('refunds');
    const webhooks = as('webhooks');
    const tally = ctx.db.as('hold_tally');
    const keys = as('idempotency_keys');
    // Seats freed by time go to the waiting lists by this loop (src/app/waitlist.ts), on every inventory database.
    const offers = ctx.inventory.all().map((db) => db.as('waitlist_offers'));
    this.loops = [
      new Loop('reconcile', () => reconcilePayments(reconcile), every, log),
      new Loop('tickets', () => relayOutbox(tickets, 'ticket.issue', log), every, log),
      new Loop('refunds', () => relayOutbox(refunds, 'refund.create', log), every, log),
      new Loop('webhooks', () => applyLeftoverEvents(webhooks, log), every * 4, log),
      new Loop('hold-tally', () => ctx.holdTally.flush(tally), 1000, log),
      new Loop('waitlist-offers', async () => { for (const db of offers) await offerRound(db, ctx.log); }, every, log),
      new Loop('idempotency-keys', () => sweepExpiredKeys(keys), 30_000, log),
    ];
  }

  start(): void {
    for (const loop of this.loops) loop.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.loops.map((l) => l.stop()));
  }

  /** One pass of every loop (tests use it to drive the work without waiting). */
  async runOnce(): Promise<void> {
    await Promise.all(this.loops.map((l) => l.runOnce()));
  }
}
