// A background loop whose passes keep failing (the database away) logs once, not
// once per pass, and says so when its passes succeed again.
import { describe, expect, it } from 'vitest';
import { Loop } from '../../src/loop.js';

describe('a background loop while its passes fail', () => {
  it('warns once for a run of failures, then once when a pass succeeds again', async () => {
    const warnings: { o: Record<string, unknown>; m: string }[] = [];
    let down = true;
    const loop = new Loop('sweeper', async () => {
      if (down) throw new Error('Connection terminated due to connection timeout');
    }, 1000, { warn: (o, m) => warnings.push({ o: o as Record<string, unknown>, m }) });
    for (let i = 0; i < 50; i++) await loop.runOnce();
    expect(warnings.map((w) => w.m)).toEqual(['worker pass failed; the next pass retries']);
    down = false;
    await loop.runOnce();
    await loop.runOnce();
    expect(warnings.map((w) => w.m)).toEqual(['worker pass failed; the next pass retries', 'worker passes succeed again']);
    expect(warnings[1]!.o).toMatchObject({ task: 'sweeper', failed_passes: 50 });
    down = true;
    await loop.runOnce();
    expect(warnings).toHaveLength(3);
  });
});
