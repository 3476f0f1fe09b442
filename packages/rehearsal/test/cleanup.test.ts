// The rehearsal's undo steps (packages/rehearsal/src/cleanup.ts). The test workers keep
// modules between files (vitest.config.ts), so one process may rehearse, clean up,
// and rehearse again: the second clean-up must run the second run's steps.
import { describe, expect, it } from 'vitest';
import { cleanup, onCleanup } from '../src/cleanup.js';

describe('cleanup', () => {
  it('runs the steps newest first, once, and again for steps registered after a clean-up', async () => {
    const ran: string[] = [];
    onCleanup('first', () => { ran.push('first'); });
    onCleanup('second', async () => { ran.push('second'); });
    const [a, b] = [cleanup(), cleanup()];
    expect(a).toBe(b);
    await a;
    expect(ran).toEqual(['second', 'first']);

    onCleanup('third', () => { ran.push('third'); });
    await cleanup();
    expect(ran).toEqual(['second', 'first', 'third']);
    await cleanup();
    expect(ran).toEqual(['second', 'first', 'third']);
  });

  it('a step run early is not run again, and a failing step does not stop the others', async () => {
    const ran: string[] = [];
    const stopNow = onCleanup('early', () => { ran.push('early'); });
    onCleanup('failing', () => { throw new Error('boom'); });
    onCleanup('last', () => { ran.push('last'); });
    await stopNow();
    await cleanup();
    expect(ran).toEqual(['early', 'last']);
  });
});
