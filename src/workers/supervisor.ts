// The background work of an instance: payment reconciliation, ticket issuing,
// refunds, cancelled shows' bookings, leftover webhooks, hold statistics, waiting-list offers, expired Idempotency-Key answers. Each task has its own loop, so a
// slow provider call in one (a refund whose answer is lost) never holds up
// another (tickets). A loop runs one pass at a time; a failing pass is logged and
// the next one retries. Polling is the truth: any number of instances (or
// `npm run worker` processes) may run these loops side by side. The per-shard tasks
// run one instance at a time per shard: a pass takes the task's lease on its shard
// first and is skipped when another instance holds it (./taskLease.ts).
import type { Context } from '../app/context.js';
import type { Database } from '../db/client.js';
import { reconcilePayments } from './reconciler.js';
import { relayOutbox } from './outboxRelay.js';
import { applyLeftoverEvents } from '../app/webhooks.js';
import { sweepExpiredKeys } from '../app/bookings.js';
import { runCancellations } from '../app/showCancellation.js';
import { offerRound } from '../app/waitlist.js';
import { Loop, type Log } from '../loop.js';
import { TaskLease } from './taskLease.js';

export class Workers {
  private readonly loops: Loop[];
  private readonly leases: TaskLease[] = [];
  private running = false;
  /** Per loop name (`reconcile@a`, …): passes run under its lease, and passes skipped because another instance held it. */
  readonly passes = new Map<string, { ran: number; skipped: number }>();

  /**
   * Every task runs for each inventory database (each shard) in a loop of its own: a
   * shard that does not answer holds up only its own. `holder`: this instance's name
   * in the task leases (src/workers/taskLease.ts).
   */
  constructor(ctx: Context, log: Log, readonly holder: string) {
    const every = ctx.config.workerIntervalMs;
    const idleMaxMs = ctx.config.workerIdleMaxMs;
    const as = (origin: string): Context => ({ ...ctx, db: ctx.db.as(origin), inventory: ctx.inventory.as(origin) });
    const reconcile = as('reconcile');
    const tickets = as('tickets');
    const refunds = as('refunds');
    const webhooks = as('webhooks');
    const tally = ctx.inventory.as('hold_tally');
    const keys = as('idempotency_keys');
    const single = ctx.inventory.named().length === 1;
    const perShard = (name: string, ofCtx: Context, interval: number, task: (db: Database) => Promise<number>): Loop[] =>
      ofCtx.inventory.named().map((s) => {
        const loopName = single ? name : `${name}@${s.name}`;
        const lease = new TaskLease(s.db, name, holder, ctx.config.workerLeaseMs);
        const count = { ran: 0, skipped: 0 };
        this.leases.push(lease);
        this.passes.set(loopName, count);
        // A pass that found nothing (or found another instance on the task) resolves
        // to 0, and the loop waits longer before the next (src/loop.ts idleMaxMs).
        return new Loop(loopName, async () => {
          let done = 0;
          if (await lease.run(async () => { done = await task(s.db); }, this.running)) count.ran++;
          else count.skipped++;
          return done;
        }, interval, log, { idleMaxMs });
      });
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
      new Loop('show-cancellations', () => runCancellations(as('show_cancellations')), every, log, { idleMaxMs }),
    ];
  }

  start(): void {
    this.running = true;
    for (const loop of this.loops) loop.start();
  }

  /** Stops the loops, waits for passes under way, and gives the leases up so another instance takes over at once. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops.map((l) => l.stop()));
    await Promise.all(this.leases.map((l) => l.release()));
  }

  /** One pass of every loop (tests use it to drive the work without waiting). */
  async runOnce(): Promise<void> {
    await Promise.all(this.loops.map((l) => l.runOnce()));
  }
}
