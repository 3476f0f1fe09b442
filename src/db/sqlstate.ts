// One translator from PostgreSQL's SQLSTATEs to the contract's errors, keeping the cause.
import { DomainError } from '../domain/errors.js';
import { ConnectionWaitTimeout } from './connectionWaits.js';

export function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

// What pg and Node say when PostgreSQL cannot be reached or stops answering: the
// pool's own bounds (src/db/client.ts), and the socket's errors.
const UNREACHABLE_MESSAGES = [
  'Connection terminated', // …unexpectedly, …due to connection timeout
  'Query read timeout',
  'timeout exceeded when trying to connect',
  'timeout expired',
  'Client has encountered a connection error and is not queryable', // its socket failed between two statements
];
const UNREACHABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/** Whether the database could not be reached or did not answer in time (as opposed to refusing a statement). */
export function databaseUnreachable(err: unknown): boolean {
  if (err instanceof ConnectionWaitTimeout) return err.suspect;
  if (err instanceof AggregateError && err.errors.some(databaseUnreachable)) return true; // both of localhost's families refused
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && UNREACHABLE_ERRNOS.has(code)) return true;
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' && err instanceof Error && !sqlState(err) && UNREACHABLE_MESSAGES.some((m) => message.startsWith(m));
}

function overloaded(err: unknown): DomainError {
  return Object.assign(new DomainError('OVERLOADED', 'the service is busy; try again shortly', { retry_after: 1 }), { cause: err });
}

/** The database is away rather than busy: asking again in a second would only add load when it comes back. */
function away(err: unknown): DomainError {
  return Object.assign(new DomainError('OVERLOADED', 'the database did not answer in time or cannot be reached; try again shortly', { retry_after: 2 }), { cause: err });
}

/** Whether the database is away (unreachable, not answering, shutting down, not there) rather than busy or refusing. */
export function databaseAway(err: unknown): boolean {
  if (databaseUnreachable(err)) return true;
  const state = sqlState(err);
  // Class 08 (connection exception): the connection failed or was refused.
  if (state?.startsWith('08')) return true;
  switch (state) {
    case '57P01': // admin_shutdown: the server is shutting down
    case '57P02': // crash_shutdown
    case '57P03': // cannot_connect_now: starting up or in recovery
    case '57P04': // database_dropped
    case '3D000': // invalid_catalog_name: the database is not there (dropped, or not restored yet)
      return true;
    default:
      return false;
  }
}

/** Turns a retryable database refusal, or a database out of reach, into 503 OVERLOADED; returns anything else unchanged. */
export function translateDbError(err: unknown): unknown {
  if (databaseAway(err)) return away(err);
  // Every connection busy with statements that are being answered: busy, not away.
  if (err instanceof ConnectionWaitTimeout) return overloaded(err);
  const state = sqlState(err);
  switch (state) {
    case '55P03': // lock_not_available: lock_timeout fired
    case '57014': // query_canceled: statement_timeout fired
    case '40001': // serialization_failure
    case '40P01': // deadlock_detected (should never happen: see docs/locking.md)
    case '53300': // too_many_connections
      return overloaded(err);
    default:
      // Class 22 (data exception): the input cannot be stored or compared, e.g. a
      // NUL byte in text or a year PostgreSQL does not know. The client's fault.
      if (state?.startsWith('22')) {
        return Object.assign(new DomainError('VALIDATION_FAILED', 'a value in the request cannot be used (invalid characters or out of range)'), { cause: err });
      }
      return err;
  }
}
