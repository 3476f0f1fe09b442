// The bank's books: every PaymentIntent, refund and event, in memory and in
// creation order. The simulator process outlives the service that calls it, so
// these records are what "was charged" means in tests and simulations. Every
// committed change also goes to a sink: the journal on disk when the books are
// kept in a folder (journal.ts), nothing when they live in memory only.
import type { BookEntry } from './journal.js';
import type { PaymentIntent, Refund, StripeEvent } from './objects.js';

/** Stripe lists events of the last 30 days; older ones are not read back from disk. */
const EVENT_RETENTION_S = 30 * 24 * 60 * 60;

/** Records of one kind in creation order, with O(1) lookup of an id's position. */
export class Ledger<T extends { id: string }> {
  private readonly items: T[] = [];
  private readonly positions = new Map<string, number>();

  add(item: T): void {
    this.positions.set(item.id, this.items.length);
    this.items.push(item);
  }

  /** Adds `item`, or replaces the record with its id where it stands. */
  put(item: T): void {
    const at = this.positions.get(item.id);
    if (at === undefined) this.add(item);
    else this.items[at] = item;
  }

  get(id: string): T | undefined {
    const at = this.positions.get(id);
    return at === undefined ? undefined : this.items[at];
  }

  /** Where `id` stands in creation order, or -1. */
  position(id: string): number {
    return this.positions.get(id) ?? -1;
  }

  /** Oldest first; callers read it, never change it. */
  all(): readonly T[] {
    return this.items;
  }

  get size(): number {
    return this.items.length;
  }
}

export class Store {
  readonly paymentIntents = new Ledger<PaymentIntent>();
  readonly refunds = new Ledger<Refund>();
  readonly events = new Ledger<StripeEvent>();
  private readonly refundsByPaymentIntent = new Map<string, Ledger<Refund>>();
  private readonly chargeOwners = new Map<string, string>();
  private sink: (entry: BookEntry) => void = () => {};
  /** PaymentIntents being processed, as last committed: what the disk must hold until their outcome is. */
  private readonly committedBeforeProcessing = new Map<string, PaymentIntent>();

  /** From now on every committed change is also handed to `sink`. */
  persistTo(sink: (entry: BookEntry) => void): void {
    this.sink = sink;
  }

  /** A PaymentIntent created or changed: call once its change is committed (the sink writes it as it is now). */
  savePaymentIntent(pi: PaymentIntent): void {
    this.committedBeforeProcessing.delete(pi.id);
    this.paymentIntents.put(pi);
    this.sink({ kind: 'payment_intent', value: pi });
  }

  /** Call before changing a committed PaymentIntent that has no outcome yet (processing): a compaction meanwhile keeps it as it was. */
  beginProcessing(pi: PaymentIntent): void {
    this.committedBeforeProcessing.set(pi.id, structuredClone(pi));
  }

  addEvent(event: StripeEvent): void {
    this.events.add(event);
    this.sink({ kind: 'event', value: event });
  }

  /** Charges are not objects here; each one only remembers its PaymentIntent (for refunds by `charge`). */
  noteCharge(chargeId: string, paymentIntentId: string): void {
    this.chargeOwners.set(chargeId, paymentIntentId);
    this.sink({ kind: 'charge', value: { id: chargeId, payment_intent: paymentIntentId } });
  }

  paymentIntentOfCharge(chargeId: string): PaymentIntent | undefined {
    const owner = this.chargeOwners.get(chargeId);
    return owner === undefined ? undefined : this.paymentIntents.get(owner);
  }

  addRefund(refund: Refund): void {
    this.putRefund(refund);
    this.sink({ kind: 'refund', value: refund });
  }

  private putRefund(refund: Refund): void {
    this.refunds.put(refund);
    let mine = this.refundsByPaymentIntent.get(refund.payment_intent);
    if (!mine) this.refundsByPaymentIntent.set(refund.payment_intent, (mine = new Ledger<Refund>()));
    mine.put(refund);
  }

  /** Takes back a change read from disk (without writing it again). Idempotency keys are not the store's. */
  replay(entry: Exclude<BookEntry, { kind: 'key' }>): void {
    switch (entry.kind) {
      case 'payment_intent': return this.paymentIntents.put(entry.value);
      case 'refund': return this.putRefund(entry.value);
      case 'charge': return void this.chargeOwners.set(entry.value.id, entry.value.payment_intent);
      case 'event':
        if (entry.value.created >= Math.floor(Date.now() / 1000) - EVENT_RETENTION_S) this.events.put(entry.value);
    }
  }

  /** Every record as a change that rebuilds it, in an order replay accepts: what a compacted journal holds. */
  *entries(): Generator<BookEntry> {
    for (const [id, pi] of this.chargeOwners) yield { kind: 'charge', value: { id, payment_intent: pi } };
    for (const pi of this.paymentIntents.all()) yield { kind: 'payment_intent', value: this.committedBeforeProcessing.get(pi.id) ?? pi };
    for (const value of this.refunds.all()) yield { kind: 'refund', value };
    for (const value of this.events.all()) yield { kind: 'event', value };
  }

  /** How many records the books hold. */
  get size(): number {
    return this.chargeOwners.size + this.paymentIntents.size + this.refunds.size + this.events.size;
  }

  refundsOf(paymentIntentId: string): Ledger<Refund> {
    return this.refundsByPaymentIntent.get(paymentIntentId) ?? new Ledger<Refund>();
  }

  refundedAmount(paymentIntentId: string): number {
    return this.refundsOf(paymentIntentId).all().reduce((sum, r) => sum + r.amount, 0);
  }
}
