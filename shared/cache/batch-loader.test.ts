// Invariant: the batch loader's grouping and error routing are pinned without I/O.
import { describe, expect, it } from 'vitest';
import { BatchLoader } from './batch-loader.ts';

describe('BatchLoader', () => {
  it('loads every key asked for in one turn with one call, in chunks, each caller getting its value or null', async () => {
    const calls: string[][] = [];
    const loader = new BatchLoader<number>(async (keys) => {
      calls.push(keys);
      return new Map(keys.filter((k) => k !== 'missing').map((k) => [k, k.length]));
    }, 2);
    const results = await Promise.all(['a', 'bb', 'a', 'missing', 'ccc'].map((k) => loader.load(k)));
    expect(results).toEqual([1, 2, 1, null, 3]);
    expect(calls).toEqual([
      ['a', 'bb'],
      ['missing', 'ccc'],
    ]);
    expect(await loader.load('dddd')).toBe(4);
    expect(calls).toHaveLength(3);
  });

  it('a failed query rejects the callers of its chunk only', async () => {
    const loader = new BatchLoader<string>(async (keys) => {
      if (keys.includes('bad')) throw new Error('boom');
      return new Map(keys.map((k) => [k, k]));
    }, 1);
    const [ok, bad] = await Promise.allSettled([loader.load('good'), loader.load('bad')]);
    expect(ok).toEqual({ status: 'fulfilled', value: 'good' });
    expect(bad).toMatchObject({ status: 'rejected', reason: new Error('boom') });
  });
});
