// The waiting-room gate of a hold, decided in process: the contract's order of
// checks (400 -> SALE_NOT_OPEN / SALE_CLOSED -> QUEUE_REQUIRED) and what counts as
// an admission to this show. Pure.
import { describe, expect, it } from 'vitest';
import { holdGate } from '../../src/waiting-room/gate.js';
import type { ShowRule } from '../../src/app/showRules.js';

const rule: ShowRule = { waitingRoom: true, saleOpensAtMs: 1_000, startsAtMs: 10_000, perUserLimit: 4, holdTtlSeconds: 600 };
const admitted = { userId: 'usr_a', showId: 'show_1', position: 3, expiresAtMs: Date.now() + 60_000 };

describe('the hold gate of a waiting-room show', () => {
  it('answers in the contract order', () => {
    expect(holdGate(rule, 500, 5, null, 'show_1')).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    expect(holdGate(rule, 500, 2, null, 'show_1')).toMatchObject({ code: 'SALE_NOT_OPEN', extensions: { sale_opens_at: new Date(1_000).toISOString() } });
    expect(holdGate(rule, 10_000, 2, null, 'show_1')).toMatchObject({ code: 'SALE_CLOSED' });
    expect(holdGate(rule, 5_000, 2, null, 'show_1')).toMatchObject({ code: 'QUEUE_REQUIRED', status: 403 });
  });

  it('lets an admission to this show through, not one to another show', () => {
    expect(holdGate(rule, 5_000, 2, admitted, 'show_1')).toBeNull();
    expect(holdGate(rule, 5_000, 2, admitted, 'show_2')).toMatchObject({ code: 'QUEUE_REQUIRED' });
    // An admission does not open a sale that has not opened.
    expect(holdGate(rule, 500, 2, admitted, 'show_1')).toMatchObject({ code: 'SALE_NOT_OPEN' });
  });
});
