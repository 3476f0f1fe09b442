// The background work of an instance: payment reconciliation, ticket issuing,
// refunds, cancelled shows' bookings, leftover webhooks, hold statistics, waiting-list offers, expired Idempotency-Key answers. Each task has its own loop, so a
// slow provider call in one (a refund whose answer is lost) never holds up
// another (tickets). A loop runs one pass at a time; a failing pass is logged and
// the next one retries. Polling is the truth: any number of instances (or
// `npm run worker` processes) may run these loops side by side.
import type { Context } from '../app/context.js';
import type { Database } from '../db/client.js';
import { reconcilePayments } from './reconciler.js';
import { relayOutbox } from './outboxRelay.js';
import { applyLeftoverEvents } from '../app/webhooks.js';
import { sweepExpiredKeys } from '../app/bookings.js';
import { runCancellations } from '../app/showCancellation.js';
import { offerRound } from '../app/waitlist.js';
import { Loop, type Log } from '../loop.js';

export class Workers {
  private readonly loops: Loop[];

  /** Every task runs for each inventory database (each shard) in a loop of its own: a shard that does not answer holds up only its own. */
  constructor(ctx: Context, log: Log) {
    const every = ctx.config.workerIntervalMs;
    const as = (origin: string): Context => ({ ...ctx, db: ctx.db.as(origin), inventory: ctx.inventory.as(origin) });
    const reconcile = as('reconcile');
    const tickets = as('tickets');
    const refunds = as('refunds');
    const webhooks = as('webhooks');
    const tally = ctx.inventory.as('hold_tally');
    const keys = as('idempotency_keys');
    const single = ctx.inventory.named().length === 1;
    const perShard = (name: string, ofCtx: Context, interval: number, task: (db: Database) => Promise<unknown>): Loop[] =>
      ofCtx.inventory.named().map((s) => new Loop(single ? name : `${name}@${s.name}`, () => task(s.db), interval, log));
    const offers = as('waitlist_offers');
    this.loops = [
      ...perShard('reconcile', reconcile, every, (db) => reconcilePayments(reconcile, db)),
      ...perShard('tickets', tickets, every, (db) => relayOutbox(tickets, db, 'ticket.issue', log)),
      ...perShard('refunds', refunds, every, (db) => relayOutbox(refunds, db, 'refund.create', log)),
      ...perShard('webhooks', webhooks, every * 4, (db) => applyLeftoverEvents(webhooks, db, log)),
      new Loop('hold-tally', () => ctx.holdTally.flush(tally), 1000, log),
      // Seats freed by time go to the waiting lists (src/app/waitlist.ts), on every inventory database.
      ...perShard('waitlist-offers', offers, every, (db) => offerRound(db, ctx.log)),
      new Loop('idempotency-keys', () => sweepExpiredKeys(keys), 30_000, log),
      // Cancelled shows' bookings, on every inventory database (src/app/showCancellation.ts).
      new Loop('show-cancellations', () => runCancellations(as('show_cancellations')), every, log),
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
