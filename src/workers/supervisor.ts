// The background work of an instance: payment reconciliation, ticket issuing,
// refunds, leftover webhooks, hold statistics. Each task has its own loop, so a
// slow provider call in one (a refund whose answer is lost) never holds up
// another (tickets). A loop runs one pass at a time; a failing pass is logged and
// the next one retries. Polling is the truth: any number of instances (or
// `npm run worker` processes) may run these loops side by side.
import type { Context } from '../app/context.js';
import { reconcilePayments } from './reconciler.js';
import { relayOutbox } from './outboxRelay.js';
import { applyLeftoverEvents } from '../app/webhooks.js';

type Log = { warn: (o: object, m: string) => void };

class Loop {
  private timer: NodeJS.Timeout | null = null;
  private pass: Promise<void> | null = null;
  private stopped = true;

  constructor(private readonly name: string, private readonly task: () => Promise<unknown>, private readonly intervalMs: number, private readonly log: Log) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.pass;
  }

  runOnce(): Promise<void> {
    this.pass ??= this.task().then(
      () => undefined,
      (err: unknown) => this.log.warn({ err, task: this.name }, 'worker pass failed; the next pass retries'),
    ).finally(() => { this.pass = null; });
    return this.pass;
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.runOnce().then(() => this.schedule(this.intervalMs)), delay);
    this.timer.unref();
  }
}

export class Workers {
  private readonly loops: Loop[];

  constructor(ctx: Context, log: Log) {
    const every = ctx.config.workerIntervalMs;
    this.loops = [
      new Loop('reconcile', () => reconcilePayments(ctx), every, log),
      new Loop('tickets', () => relayOutbox(ctx, 'ticket.issue', log), every, log),
      new Loop('refunds', () => relayOutbox(ctx, 'refund.create', log), every, log),
      new Loop('webhooks', () => applyLeftoverEvents(ctx), every * 4, log),
      new Loop('hold-tally', () => ctx.holdTally.flush(ctx.db), 1000, log),
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
