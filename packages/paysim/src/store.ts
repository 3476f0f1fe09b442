// The bank's books: every PaymentIntent, refund and event, in memory and in
// creation order. The simulator process outlives the service that calls it, so
// these records are what "was charged" means in tests and simulations.
import type { PaymentIntent, Refund, StripeEvent } from './objects.js';

/** Records of one kind in creation order, with O(1) lookup of an id's position. */
export class Ledger<T extends { id: string }> {
  private readonly items: T[] = [];
  private readonly positions = new Map<string, number>();

  add(item: T): void {
    this.positions.set(item.id, this.items.length);
    this.items.push(item);
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

  /** Charges are not objects here; each one only remembers its PaymentIntent (for refunds by `charge`). */
  noteCharge(chargeId: string, paymentIntentId: string): void {
    this.chargeOwners.set(chargeId, paymentIntentId);
  }

  paymentIntentOfCharge(chargeId: string): PaymentIntent | undefined {
    const owner = this.chargeOwners.get(chargeId);
    return owner === undefined ? undefined : this.paymentIntents.get(owner);
  }

  addRefund(refund: Refund): void {
    this.refunds.add(refund);
    let mine = this.refundsByPaymentIntent.get(refund.payment_intent);
    if (!mine) this.refundsByPaymentIntent.set(refund.payment_intent, (mine = new Ledger<Refund>()));
    mine.add(refund);
  }

  refundsOf(paymentIntentId: string): Ledger<Refund> {
    return this.refundsByPaymentIntent.get(paymentIntentId) ?? new Ledger<Refund>();
  }

  refundedAmount(paymentIntentId: string): number {
    return this.refundsOf(paymentIntentId).all().reduce((sum, r) => sum + r.amount, 0);
  }
}
