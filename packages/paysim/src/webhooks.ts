// Webhook delivery as Stripe does it: each event is POSTed as JSON to the
// endpoint with a fresh Stripe-Signature per attempt, and retried with
// exponential backoff until the endpoint answers 2xx (or attempts run out).
// Chaos can send an event twice, late, or shuffled within a batch; Stripe
// promises none of ordering, exactly-once or promptness, and neither do we.
import type { FastifyBaseLogger } from 'fastify';
import type { Chaos } from './chaos.js';
import type { StripeEvent } from './objects.js';
import { DueQueue } from './dueQueue.js';
import { shuffledOutOfOrder } from './rng.js';
import { signatureHeader } from './signature.js';
import { WebhookPoster } from './webhookPost.js';

export interface WebhookTuning {
  /** Wait before the 2nd attempt; doubles per attempt up to retryMaxMs. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Attempts per delivery, the first included; then it is given up (and counted). */
  maxAttempts: number;
  attemptTimeoutMs: number;
  /** Deliveries in flight at once; 1 keeps the order in which they became due. */
  concurrency: number;
  /** With webhook_reorder on: how long due deliveries are gathered into one shuffled batch. */
  reorderWindowMs: number;
}

export const DEFAULT_WEBHOOK_TUNING: Readonly<WebhookTuning> = Object.freeze({
  retryBaseMs: 1000,
  retryMaxMs: 60_000,
  maxAttempts: 10,
  attemptTimeoutMs: 10_000,
  concurrency: 8,
  reorderWindowMs: 100,
});

interface Delivery {
  event: StripeEvent;
  attempt: number;
  dueAt: number;
  seq: number;
}

export interface WebhookStats {
  endpoint: string | null;
  waiting: number;
  in_flight: number;
  attempts: number;
  delivered: number;
  failed_attempts: number;
  given_up: number;
}

export class WebhookSender {
  private readonly waiting = new DueQueue<Delivery>();
  private ready: Delivery[] = [];
  private batch: Delivery[] = [];
  private batchTimer: NodeJS.Timeout | null = null;
  private wakeTimer: NodeJS.Timeout | null = null;
  private inFlight = new Set<AbortController>();
  private running = false;
  private seq = 0;
  private counts = { attempts: 0, delivered: 0, failed_attempts: 0, given_up: 0 };
  private readonly poster: WebhookPoster;

  constructor(
    private endpoint: { url: string | null; secret: string },
    private readonly chaos: Chaos,
    private readonly tuning: WebhookTuning,
    private readonly log: FastifyBaseLogger,
  ) {
    this.poster = new WebhookPoster(tuning.concurrency);
  }

  get url(): string | null {
    return this.endpoint.url;
  }

  /** Points delivery somewhere else (e.g. once the service knows its own port); queued deliveries follow. */
  setEndpoint(url: string | null, secret: string = this.endpoint.secret): void {
    this.endpoint = { url, secret };
    this.pump();
  }

  /** Queues an event for delivery; without an endpoint it is only kept in the event log. */
  enqueue(event: StripeEvent): void {
    if (this.endpoint.url === null) return;
    const copies = this.chaos.happens(this.chaos.settings.webhook_duplicate_rate) ? 2 : 1;
    const now = Date.now();
    for (let i = 0; i < copies; i++) {
      this.waiting.push({ event, attempt: 1, dueAt: now + this.chaos.upTo(this.chaos.settings.webhook_delay_ms), seq: this.seq++ });
    }
    this.pump();
  }

  start(): void {
    this.running = true;
    this.pump();
  }

  /** Stops sending; attempts in flight are aborted and queued deliveries are kept. */
  stop(): void {
    this.running = false;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.wakeTimer = this.batchTimer = null;
    for (const delivery of [...this.ready, ...this.batch]) this.waiting.push(delivery);
    this.ready = [];
    this.batch = [];
    for (const controller of this.inFlight) controller.abort();
    this.poster.close();
  }

  stats(): WebhookStats {
    return {
      endpoint: this.endpoint.url,
      waiting: this.waiting.size + this.ready.length + this.batch.length,
      in_flight: this.inFlight.size,
      ...this.counts,
    };
  }

  private pump(): void {
    if (!this.running || this.endpoint.url === null) return;
    const now = Date.now();
    const due = this.waiting.takeDue(now);
    if (due.length > 0) {
      if (this.chaos.settings.webhook_reorder) this.gather(due);
      else this.ready.push(...due);
    }
    while (this.inFlight.size < this.tuning.concurrency && this.ready.length > 0) {
      void this.attempt(this.ready.shift() as Delivery);
    }
    this.scheduleWake(now);
  }

  private gather(due: Delivery[]): void {
    this.batch.push(...due);
    if (this.batchTimer) return;
    this.batchTimer = setTimeout(() => {
      this.batchTimer = null;
      this.ready.push(...shuffledOutOfOrder(this.batch, this.chaos.random));
      this.batch = [];
      this.pump();
    }, this.tuning.reorderWindowMs);
  }

  private scheduleWake(now: number): void {
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    const next = this.waiting.nextDueAt();
    if (next === null) return;
    this.wakeTimer = setTimeout(() => this.pump(), Math.max(0, next - now));
  }

  private async attempt(delivery: Delivery): Promise<void> {
    const { url, secret } = this.endpoint;
    if (url === null) return;
    const controller = new AbortController();
    this.inFlight.add(controller);
    const timeout = setTimeout(() => controller.abort(), this.tuning.attemptTimeoutMs);
    this.counts.attempts++;
    let failure: string | null = null;
    try {
      const payload = JSON.stringify(delivery.event, null, 2);
      const status = await this.poster.post(url, {
        'content-type': 'application/json; charset=utf-8',
        'stripe-signature': signatureHeader(payload, secret), // signed anew on every attempt, as Stripe does
        'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      }, payload, controller.signal);
      if (status < 200 || status > 299) failure = `answered ${status}`;
    } catch (err) {
      failure = err instanceof Error ? err.message : String(err);
    } finally {
      clearTimeout(timeout);
      this.inFlight.delete(controller);
    }
    if (failure === null) this.counts.delivered++;
    else this.retryLater(delivery, failure);
    this.pump();
  }

  private retryLater(delivery: Delivery, failure: string): void {
    this.counts.failed_attempts++;
    if (delivery.attempt >= this.tuning.maxAttempts) {
      this.counts.given_up++;
      this.log.warn({ event_id: delivery.event.id, attempts: delivery.attempt, failure }, 'webhook given up');
      return;
    }
    const wait = Math.min(this.tuning.retryBaseMs * 2 ** (delivery.attempt - 1), this.tuning.retryMaxMs);
    this.log.info({ event_id: delivery.event.id, attempt: delivery.attempt, failure, retry_in_ms: wait }, 'webhook attempt failed');
    this.waiting.push({ ...delivery, attempt: delivery.attempt + 1, dueAt: Date.now() + wait });
  }
}
