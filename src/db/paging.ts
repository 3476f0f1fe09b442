// Keyset paging in creation order: the statements' shared pieces.
import type { Position } from '../domain/paging.js';

/** The select-list item naming a row's position; `alias` is a table alias of the statement. */
export function positionColumn(alias: 'v' | 'h' | 'e' | 's'): string {
  return `to_char(${alias}.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as position_at`;
}

/** The two parameters of `(created_at, id) > ($n, $n+1)`: before every row when there is no cursor. */
export function afterParams(after: Position | null): [string, string] {
  return after ? [after.at, after.id] : ['-infinity', ''];
}

export function withPosition<R extends { id: string; position_at: string }>(row: R): Omit<R, 'position_at'> & { position: Position } {
  const { position_at, ...rest } = row;
  return { ...rest, position: { at: position_at, id: row.id } };
}
