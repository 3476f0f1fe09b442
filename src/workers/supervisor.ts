// The background work of an instance: payment reconciliation, ticket issuing,
// refunds, leftover webhooks, hold statistics, expired Idempotency-Key answers. Each task has its own loop, so a
// slow provider call in one (a refund whose answer is lost) never holds up
// another (tickets). A loop runs one pass at a time; a failing pass is logged and
// the next one retries. Polling is the truth: any number of instances (or
// `npm run worker` processes) may run these loops side by side.
import type { Context } from '../app/context.js';
import { reconcilePayments } from './reconciler.js';
import { relayOutbox } from './outboxRelay.js';
import { applyLeftoverEvents } from '../app/webhooks.js';
import { sweepExpiredKeys } from '../app/idempotentBooking.js';
import { Loop, type Log } from './loop.js';

export class Workers {
  private readonly loops: Loop[];

  constructor(ctx: Context, log: Log) {
    const every = ctx.config.workerIntervalMs;
    this.loops = [
      new Loop('reconcile', () => reconcilePayments(ctx), every, log),
      new Loop('tickets', () => relayOutbox(ctx, 'ticket.issue', log), every, log),
      new Loop('refunds', () => relayOutbox(ctx, 'refund.create', log), every, log),
      new Loop('webhooks', () => applyLeftoverEvents(ctx, log), every * 4, log),
      new Loop('hold-tally', () => ctx.holdTally.flush(ctx.db), 1000, log),
      new Loop('idempotency-keys', () => sweepExpiredKeys(ctx), 30_000, log),
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
