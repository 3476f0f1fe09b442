// The payment method choice and the Pay button. In test mode (the payment simulator)
// its test methods are offered with what each does; with real Stripe this build
// takes no card details and says so.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client';
import type { PaymentMethods } from '../api/types';
import { problemText } from '../problemText';

interface Props {
  amountText: string;
  paying: boolean;
  onPay(method: string): void;
}

export function PaymentForm({ amountText, paying, onPay }: Props) {
  const [methods, setMethods] = useState<PaymentMethods | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [method, setMethod] = useState('');

  useEffect(() => {
    api.paymentMethods().then((m) => { setMethods(m); setMethod(m.methods[0]?.id ?? ''); }, (e) => setError(problemText(e)));
  }, []);

  if (error) return <p class="error" role="alert">Payment methods could not be loaded. {error}</p>;
  if (!methods) return <p role="status">Loading payment methods…</p>;
  if (!methods.test_mode || methods.methods.length === 0) {
    return <p class="notice">Card payment is not available in this build of boxoffice.</p>;
  }
  return (
    <form class="payment-form" onSubmit={(e) => { e.preventDefault(); if (method && !paying) onPay(method); }}>
      <fieldset>
        <legend>Payment method</legend>
        <p class="notice">Test mode: payments go to the payment simulator and no real card is charged. Each test method below has a known outcome.</p>
        {methods.methods.map((m) => (
          <div class="method" key={m.id}>
            <input type="radio" name="payment-method" id={`pm-${m.id}`} value={m.id} checked={method === m.id}
              onChange={() => setMethod(m.id)} />
            <label for={`pm-${m.id}`}><code>{m.id}</code> <span class="muted">{m.description}</span></label>
          </div>
        ))}
      </fieldset>
      <button type="submit" class="primary" aria-disabled={paying || !method ? 'true' : undefined}>{paying ? 'Paying…' : `Pay ${amountText}`}</button>
    </form>
  );
}
