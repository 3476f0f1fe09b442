// One supervised loop for the background work of an instance: payment
// reconciliation, outbox delivery, leftover webhooks. Each task runs at most once
// at a time; a failing pass is logged and the next pass retries. Polling is the
// truth: any number of instances (or `npm run worker` processes) may run it.
import type { Context } from '../app/context.js';
import { reconcilePayments } from './reconciler.js';
import { relayOutbox } from './outboxRelay.js';
import { applyLeftoverEvents } from '../app/webhooks.js';

type Log = { warn: (o: object, m: string) => void };

export class Workers {
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<void> | null = null;

  constructor(private readonly ctx: Context, private readonly log: Log) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.runOnce(), this.ctx.config.workerIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.pass;
  }

  /** One pass of every task; overlapping calls share the pass in progress. */
  runOnce(): Promise<void> {
    this.pass ??= (async () => {
      const tasks: [string, () => Promise<number>][] = [
        ['reconcile', () => reconcilePayments(this.ctx)],
        ['outbox', () => relayOutbox(this.ctx, this.log)],
        ['webhooks', () => applyLeftoverEvents(this.ctx)],
        ['hold-tally', async () => { await this.ctx.holdTally.flush(this.ctx.db); return 0; }],
      ];
      await Promise.all(tasks.map(async ([name, task]) => {
        try {
          await task();
        } catch (err) {
          this.log.warn({ err, task: name }, 'worker pass failed; the next pass retries');
        }
      }));
      this.pass = null;
    })();
    return this.pass;
  }
}
