// The guard of a state move in SQL: `status in ('held')` from the move tables of src/domain/states.ts.

/** The literals come from those typed tables, never from input. */
export function statusIn(statuses: readonly string[], column = 'status'): string {
  return `${column} in (${statuses.map((s) => `'${s}'`).join(', ')})`;
}
