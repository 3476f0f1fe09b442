// problem+json checks shared by the HTTP and booking tests (not a test file).
import { expect } from 'vitest';
import type { HttpAnswer } from './http.js';

/** The contract's closed set of error codes (API.md). */
export const CONTRACT_CODES = new Set([
  'VALIDATION_FAILED', 'UNAUTHENTICATED', 'INVALID_CREDENTIALS', 'FORBIDDEN', 'SALE_NOT_OPEN', 'SALE_CLOSED',
  'QUEUE_REQUIRED', 'NOT_FOUND', 'EMAIL_TAKEN', 'SEAT_UNAVAILABLE', 'LIMIT_EXCEEDED', 'HOLD_PAYING', 'OVERLOADED', 'MOVE_IN_PROGRESS',
  'NOT_READY', 'HOLD_EXPIRED', 'HOLD_CONFIRMED', 'IDEMPOTENCY_KEY_MISSING', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_FLIGHT',
  'CANCELLATION_WINDOW_CLOSED', 'NOT_CANCELLABLE', 'WEBHOOK_SIGNATURE_INVALID', 'ALREADY_CHECKED_IN', 'TICKET_VOID',
  'TICKET_INVALID', 'NOT_YET_ADMITTED', 'ADMISSION_LAPSED', 'TOKEN_INVALID', 'RATE_LIMITED', 'NO_WAITING_ROOM',
  'SHOW_CANCELLED', 'SHOW_HAS_BOOKINGS', 'SEATS_AVAILABLE',
]);

export function describeAnswer(r: HttpAnswer): string {
  return `${r.status} ${String(r.headers['content-type'])} ${r.text.slice(0, 400)}`;
}

/** An RFC 9457 problem with the given HTTP status and contract code. */
export function expectProblem(r: HttpAnswer, status: number, code: string): void {
  expect(r.status, describeAnswer(r)).toBe(status);
  expect(String(r.headers['content-type']), describeAnswer(r)).toMatch(/^application\/problem\+json/);
  expect(r.body, describeAnswer(r)).toMatchObject({ status, code });
  expect(CONTRACT_CODES.has(r.body.code), `code ${r.body.code} is not in the contract`).toBe(true);
  for (const field of ['type', 'title', 'detail'] as const) {
    expect(typeof r.body[field], `${field} of ${describeAnswer(r)}`).toBe('string');
    expect((r.body[field] as string).length, `${field} of ${describeAnswer(r)}`).toBeGreaterThan(0);
  }
}
