// Keeping the books in a folder: what the store and the idempotency keys hold is
// read back from the journal there, and every change they commit is appended to it.
import type { IdempotencyKeys } from './idempotency.js';
import { Journal, type BookEntry } from './journal.js';
import type { Store } from './store.js';

export function keepBooksIn(dir: string, store: Store, keys: IdempotencyKeys): Journal {
  const journal = Journal.open(
    dir,
    (entry) => (entry.kind === 'key' ? keys.replay(entry) : store.replay(entry)),
    function* live(): Generator<BookEntry> {
      yield* store.entries();
      yield* keys.saved();
    },
  );
  const append = (entry: BookEntry) => {
    journal.append(entry);
    journal.compactIfLarge(store.size + keys.size);
  };
  store.persistTo(append);
  keys.persistTo(append);
  return journal;
}
