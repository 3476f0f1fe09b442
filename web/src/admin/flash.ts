// One message from a page to the next within the app ("Hall … created"), kept in memory
// rather than in the address: it is shown once, never bookmarked, shared or logged with
// the URL, and gone on a reload.
let pending = '';

export function flash(message: string): void { pending = message; }

/** The message left for this page, once. */
export function takeFlash(): string {
  const m = pending;
  pending = '';
  return m;
}
