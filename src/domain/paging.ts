// Paging through a list in creation order. A cursor is opaque to clients; inside it
// names the last item's position (its created_at to the microsecond, and its id),
// so the next page starts right after it whatever was added meanwhile.
import { validationFailed } from './errors.js';

export const PAGE_DEFAULT = 50;
export const PAGE_MAX = 200;

export interface Position {
  /** created_at as PostgreSQL wrote it: RFC 3339 UTC with microseconds. */
  at: string;
  id: string;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

const POSITION = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z) ([A-Za-z0-9_]{1,64})$/;

export function encodeCursor(p: Position): string {
  return Buffer.from(`${p.at} ${p.id}`).toString('base64url');
}

/** The position a cursor names; a 400 for anything this service did not hand out. */
export function decodeCursor(cursor: string | undefined): Position | null {
  if (cursor === undefined) return null;
  const match = POSITION.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw validationFailed('the cursor is not one this list gave', [{ path: 'querystring:/cursor', message: 'use next_cursor from the previous page' }]);
  return { at: match[1]!, id: match[2]! };
}

/** Rows fetched with one extra beyond the limit become a page and the cursor to the next. */
export function toPage<T>(rows: (T & { position: Position })[], limit: number): Page<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: items.map(({ position: _, ...item }) => item as T),
    next_cursor: rows.length > limit && last ? encodeCursor(last.position) : null,
  };
}
