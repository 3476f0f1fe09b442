// The Idempotency-Key of a payment attempt: fresh for each new attempt, the same one
// when the same attempt (same hold, same method) is retried after it got no answer,
// so a retried click can never charge twice. Kept in sessionStorage across a reload.

interface Attempt { method: string; key: string }

const storageKey = (holdId: string) => `boxoffice.payment.${holdId}`;

function newKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

export const paymentAttempt = {
  /** The key for paying `holdId` with `method`: the unanswered attempt's key when it used the same method. */
  keyFor(holdId: string, method: string): string {
    const raw = sessionStorage.getItem(storageKey(holdId));
    const open = raw ? (JSON.parse(raw) as Attempt) : null;
    if (open && open.method === method) return open.key;
    const key = newKey();
    sessionStorage.setItem(storageKey(holdId), JSON.stringify({ method, key }));
    return key;
  },
  /** The attempt got a final answer: the next click is a new attempt with a new key. */
  settle(holdId: string): void {
    sessionStorage.removeItem(storageKey(holdId));
  },
};
