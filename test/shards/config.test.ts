// SHARD_URLS is read strictly: a clear error for every way it can be wrong.
import { describe, expect, it } from 'vitest';
import { loadConfig, shardUrls } from '../../src/config.js';

const CONTROL = 'postgres://u@db0/control';

describe('SHARD_URLS', () => {
  it('unset or empty: no shards, one database serves everything', () => {
    expect(shardUrls(undefined, null)).toEqual([]);
    expect(shardUrls('  ', CONTROL)).toEqual([]);
    expect(loadConfig({}).shards).toEqual([]);
  });

  it('reads name=url entries in order', () => {
    expect(shardUrls('a=postgres://u@db1/a, b-2=postgresql://u@db2/b', CONTROL)).toEqual([
      { name: 'a', url: 'postgres://u@db1/a' }, { name: 'b-2', url: 'postgresql://u@db2/b' },
    ]);
    expect(loadConfig({ DATABASE_URL: CONTROL, SHARD_URLS: 'x=postgres://h/x' }).shards).toEqual([{ name: 'x', url: 'postgres://h/x' }]);
  });

  it('refuses shards without a control database, bad names, bad URLs, repeats', () => {
    expect(() => shardUrls('a=postgres://h/a', null)).toThrow(/needs DATABASE_URL/);
    expect(() => shardUrls('postgres://h/a', CONTROL)).toThrow(/name=postgres/);
    expect(() => shardUrls('A=postgres://h/a', CONTROL)).toThrow(/lower-case/);
    expect(() => shardUrls('a=mysql://h/a', CONTROL)).toThrow(/postgres:\/\/ URL/);
    expect(() => shardUrls('a=postgres://h/a,a=postgres://h/b', CONTROL)).toThrow(/twice/);
    expect(() => shardUrls('a=postgres://h/a,b=postgres://h/a', CONTROL)).toThrow(/same URL/);
  });

  it('never prints a password from a malformed entry', () => {
    expect(() => shardUrls('postgres://user:secret@h/a', CONTROL)).toThrow(/^(?!.*secret)/s);
  });
});
