// What a use-case's failure means to the contract, for the transports (http/problem.ts
// maps the answer to HTTP): the database's refusals and absences (a lock or statement
// timeout, the database away or busy, a value it cannot store) become DomainErrors
// keeping their cause, by db/sqlstate.ts, the one SQLSTATE translator; so no
// transport needs to know the database's codes.
import { translateDbError } from '../db/sqlstate.js';

/** The contract's error (a DomainError) for `err` where it has one; anything else unchanged. */
export function contractError(err: unknown): unknown {
  return translateDbError(err);
}
