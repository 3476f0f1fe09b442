// Accept-Encoding negotiation and If-None-Match matching (pure functions).
import { describe, expect, it } from 'vitest';
import { chooseCoding } from '../../src/http/contentCoding.js';
import { noneMatchHits } from '../../src/http/conditional.js';

describe('chooseCoding', () => {
  it.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip;q=1, br;q=0.9', 'gzip'],
    ['br;q=0.5, gzip;q=0.5', 'br'],
    ['BR', 'br'],
    ['x-gzip', 'gzip'],
    ['*', 'br'],
    ['*;q=0.3, br;q=0', 'gzip'],
    ['br;q=0, gzip;q=0', 'identity'],
    ['deflate', 'identity'],
    ['gzip;q=0.4, identity;q=0.5', 'identity'],
    ['gzip;q=0.5, identity', 'identity'],
    ['gzip;q=abc, br;q=2', 'identity'],
    ['gzip ; q=0.8 , br ; q=0.7', 'gzip'],
  ] as const)('%s → %s', (header, want) => {
    expect(chooseCoding(header)).toBe(want);
    // asked again (remembered), the same answer
    expect(chooseCoding(header)).toBe(want);
  });
});

describe('noneMatchHits', () => {
  const tags = ['"7.0.abc"', '"7.0.abc-br"', '"7.0.abc-gzip"'];
  it.each([
    [undefined, false],
    ['"7.0.abc"', true],
    ['"7.0.abc-gzip"', true],
    ['W/"7.0.abc-br"', true],
    ['"6.0.abc", "7.0.abc"', true],
    ['*', true],
    ['"6.0.abc"', false],
    ['7.0.abc', false],
  ] as const)('%s → %s', (header, want) => {
    expect(noneMatchHits(header, tags)).toBe(want);
  });
});
