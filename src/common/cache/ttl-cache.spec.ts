import { describe, expect, it } from '@jest/globals';
import { TtlCache } from './ttl-cache.js';

describe(TtlCache.name, () => {
  it('should return a value until its time to live has passed', () => {
    let now = 1_000;
    const sut = new TtlCache<string, number>(100, 10, () => now);
    sut.set('a', 1);
    now = 1_099;
    expect(sut.get('a')).toBe(1);
    now = 1_100;
    expect(sut.get('a')).toBeUndefined();
  });

  it('should evict the oldest entry when full', () => {
    const sut = new TtlCache<string, number>(1_000, 2);
    sut.set('a', 1);
    sut.set('b', 2);
    sut.set('c', 3);
    expect([sut.get('a'), sut.get('b'), sut.get('c')]).toEqual([undefined, 2, 3]);
  });

  it('should forget a deleted entry', () => {
    const sut = new TtlCache<string, number>(1_000, 2);
    sut.set('a', 1);
    sut.delete('a');
    expect(sut.get('a')).toBeUndefined();
  });
});
