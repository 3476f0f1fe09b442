// The total of seat map streams a process takes, derived from its open file limit
// (src/live/streamCapacity.ts, pure), and the limit read from /proc/<pid>/limits.
import { describe, expect, it } from 'vitest';
import { ASSUMED_OPEN_FILES, parseOpenFileLimit, streamCapacity } from '../../src/live/streamCapacity.js';
import { readOpenFileLimit } from '../../src/live/openFileLimit.js';
import { loadConfig } from '../../src/config.js';

const PROC_LIMITS = [
  'Limit                     Soft Limit           Hard Limit           Units     ',
  'Max processes             96369                96369                processes ',
  'Max open files            20000                20000                files     ',
  'Max locked memory         8388608              8388608              bytes     ',
].join('\n');

describe('parseOpenFileLimit', () => {
  it('reads the soft and hard limits of the Max open files line', () => {
    expect(parseOpenFileLimit(PROC_LIMITS)).toEqual({ soft: 20_000, hard: 20_000 });
    expect(parseOpenFileLimit('Max open files            1024                 524288               files     ')).toEqual({ soft: 1024, hard: 524_288 });
    expect(parseOpenFileLimit('Max open files            unlimited            unlimited            files     ')).toEqual({ soft: Infinity, hard: Infinity });
  });

  it('is null without that line', () => {
    expect(parseOpenFileLimit('')).toBeNull();
    expect(parseOpenFileLimit('Max processes             96369                96369                processes ')).toBeNull();
  });

  it('finds this process\'s limit on Linux', () => {
    const limit = readOpenFileLimit();
    if (process.platform !== 'linux') return expect(limit).toBeNull();
    expect(limit!.soft).toBeGreaterThan(0);
    expect(limit!.soft).toBeLessThanOrEqual(limit!.hard);
  });
});

describe('streamCapacity', () => {
  it('keeps a quarter of a large limit for the API: 20,000 descriptors take 15,000 streams, not the configured 20,000', () => {
    const configured = loadConfig({}).liveMap.maxViewers;
    expect(configured).toBe(20_000);
    expect(streamCapacity({ configured, limit: { soft: 20_000, hard: 20_000 }, poolSize: 20 })).toEqual({ viewers: 15_000, reserve: 5000, openFiles: 20_000, assumed: false });
  });

  it('keeps at least 256 besides the pool (and the connection aside) under a small limit', () => {
    expect(streamCapacity({ configured: 20_000, limit: { soft: 1024, hard: 4096 }, poolSize: 20 })).toEqual({ viewers: 747, reserve: 277, openFiles: 1024, assumed: false });
    expect(streamCapacity({ configured: 20_000, limit: { soft: 300, hard: 300 }, poolSize: 20 })).toMatchObject({ viewers: 23, reserve: 277 });
    expect(streamCapacity({ configured: 20_000, limit: { soft: 1024, hard: 1024 }, poolSize: 200 }).reserve).toBe(457);
  });

  it('takes no stream when the limit leaves nothing beside the reserve', () => {
    expect(streamCapacity({ configured: 20_000, limit: { soft: 200, hard: 200 }, poolSize: 20 }).viewers).toBe(0);
  });

  it('keeps a configured total below what the limit allows', () => {
    expect(streamCapacity({ configured: 500, limit: { soft: 1_048_576, hard: 1_048_576 }, poolSize: 20 }).viewers).toBe(500);
    expect(streamCapacity({ configured: 500, limit: { soft: Infinity, hard: Infinity }, poolSize: 20 }).viewers).toBe(500);
  });

  it('assumes the conservative 1024 where the limit cannot be read', () => {
    expect(ASSUMED_OPEN_FILES).toBe(1024);
    expect(streamCapacity({ configured: 20_000, limit: null, poolSize: 20 })).toEqual({ viewers: 747, reserve: 277, openFiles: 1024, assumed: true });
  });
});
