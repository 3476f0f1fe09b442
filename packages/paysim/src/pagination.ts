// Stripe's cursor pagination: newest first, `limit` 1..100 (default 10),
// `starting_after` (older than that id) or `ending_before` (newer than it), and a
// list object that says whether there is more.
import { invalidParam, noSuch } from './errors.js';
import type { ListObject } from './objects.js';
import type { Ledger } from './store.js';

export interface PageRequest {
  limit: number;
  startingAfter: string | null;
  endingBefore: string | null;
}

function text(query: Record<string, unknown>, name: string): string | null {
  const value = query[name];
  if (value === undefined || value === '') return null;
  if (typeof value !== 'string') throw invalidParam(`Invalid string: ${JSON.stringify(value)}`, 'parameter_invalid_string', name);
  return value;
}

export function pageRequest(query: Record<string, unknown>): PageRequest {
  const rawLimit = text(query, 'limit');
  let limit = 10;
  if (rawLimit !== null) {
    if (!/^-?\d+$/.test(rawLimit)) throw invalidParam(`Invalid integer: ${rawLimit}`, 'parameter_invalid_integer', 'limit');
    limit = Number(rawLimit);
    if (limit < 1) throw invalidParam(`This value must be greater than or equal to 1 (it currently is '${rawLimit}').`, 'parameter_invalid_integer', 'limit');
    if (limit > 100) throw invalidParam(`This value must be less than or equal to 100 (it currently is '${rawLimit}').`, 'parameter_invalid_integer', 'limit');
  }
  const startingAfter = text(query, 'starting_after');
  const endingBefore = text(query, 'ending_before');
  if (startingAfter !== null && endingBefore !== null) {
    throw invalidParam('You may only specify one of these parameters: ending_before, starting_after.', 'parameter_invalid_empty', 'ending_before');
  }
  return { limit, startingAfter, endingBefore };
}

/** One page of `ledger` (kept oldest first) as a newest-first list object. */
export function listPage<T extends { id: string }>(ledger: Ledger<T>, page: PageRequest, url: string, kind: string): ListObject<T> {
  const items = ledger.all();
  const cursor = page.startingAfter ?? page.endingBefore;
  // The cursor must name an object of this list (as Stripe's does).
  const at = cursor === null ? -1 : ledger.position(cursor);
  if (cursor !== null && at < 0) throw noSuch(kind, cursor, page.startingAfter !== null ? 'starting_after' : 'ending_before');

  let newestFirst: T[];
  let hasMore: boolean;
  if (page.endingBefore !== null) {
    // The `limit` objects just newer than the cursor.
    const end = Math.min(items.length, at + 1 + page.limit);
    newestFirst = items.slice(at + 1, end).reverse();
    hasMore = end < items.length;
  } else {
    const end = page.startingAfter !== null ? at : items.length;
    const start = Math.max(0, end - page.limit);
    newestFirst = items.slice(start, end).reverse();
    hasMore = start > 0;
  }
  return { object: 'list', data: newestFirst, has_more: hasMore, url };
}
