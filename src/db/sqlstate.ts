// One translator from PostgreSQL's SQLSTATEs to the contract's errors, keeping the cause.
import { DomainError } from '../domain/errors.js';

export function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** Turns a retryable database refusal into 503 OVERLOADED; returns anything else unchanged. */
export function translateDbError(err: unknown): unknown {
  switch (sqlState(err)) {
    case '55P03': // lock_not_available: lock_timeout fired
    case '57014': // query_canceled: statement_timeout fired
    case '40001': // serialization_failure
    case '40P01': // deadlock_detected (should never happen: see docs/locking.md)
    case '53300': // too_many_connections
      return Object.assign(new DomainError('OVERLOADED', 'the service is busy; try again shortly', { retry_after: 1 }), { cause: err });
    default:
      // Class 22 (data exception): the input cannot be stored or compared, e.g. a
      // NUL byte in text or a year PostgreSQL does not know. The client's fault.
      if (sqlState(err)?.startsWith('22')) {
        return Object.assign(new DomainError('VALIDATION_FAILED', 'a value in the request cannot be used (invalid characters or out of range)'), { cause: err });
      }
      return err;
  }
}
