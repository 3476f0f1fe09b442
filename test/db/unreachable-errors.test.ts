// What the database says when it is away, turned into the contract's 503
// OVERLOADED with Retry-After (src/db/sqlstate.ts); a statement's own faults stay
// what they were.
import { describe, expect, it } from 'vitest';
import { translateDbError } from '../../src/db/sqlstate.js';
import { DomainError } from '../../src/domain/errors.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
const errno = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, errno: -111, syscall: 'connect' });

describe('translateDbError: the database away', () => {
  it.each([
    ['refused', errno('ECONNREFUSED')],
    ['reset', errno('ECONNRESET')],
    ['timed out (socket)', errno('ETIMEDOUT')],
    ['no route', errno('EHOSTUNREACH')],
    ['both families refused', new AggregateError([errno('ECONNREFUSED'), errno('ECONNREFUSED')], '')],
    ['connect bound', new Error('Connection terminated due to connection timeout')],
    ['pool queue bound', new Error('timeout exceeded when trying to connect')],
    ['client statement bound', new Error('Query read timeout')],
    ['dropped connection', new Error('Connection terminated unexpectedly')],
    ['admin_shutdown', withCode('terminating connection due to administrator command', '57P01')],
    ['cannot_connect_now', withCode('the database system is starting up', '57P03')],
    ['connection_failure', withCode('connection failure', '08006')],
    ['sqlclient_unable_to_establish_sqlconnection', withCode('could not connect', '08001')],
    ['database dropped', withCode('database "x" does not exist', '3D000')],
  ])('%s: 503 OVERLOADED with retry_after', (_name, err) => {
    const t = translateDbError(err);
    expect(t).toBeInstanceOf(DomainError);
    expect((t as DomainError).code).toBe('OVERLOADED');
    expect((t as DomainError).extensions).toMatchObject({ retry_after: expect.any(Number) });
    expect((t as Error).cause).toBe(err);
  });

  it('leaves anything else as it was', () => {
    const unique = withCode('duplicate key value violates unique constraint', '23505');
    expect(translateDbError(unique)).toBe(unique);
    const bug = new TypeError('Connection is not a function');
    expect(translateDbError(bug)).toBe(bug);
  });
});
