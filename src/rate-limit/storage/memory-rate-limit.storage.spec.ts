import { afterEach, describe, expect, it } from '@jest/globals';
import { MemoryRateLimitStorage } from './memory-rate-limit.storage.js';

const MINUTE = 60_000;

describe(MemoryRateLimitStorage.name, () => {
  let sut: MemoryRateLimitStorage;
  afterEach(() => sut.onApplicationShutdown());

  it('should count hits in a window and refuse past the limit', async () => {
    sut = new MemoryRateLimitStorage(10);
    await sut.increment('a', MINUTE, 2);
    await sut.increment('a', MINUTE, 2);
    const third = await sut.increment('a', MINUTE, 2);
    expect(third).toEqual({
      totalHits: 3,
      timeToExpire: 60,
      isBlocked: true,
      timeToBlockExpire: 60,
    });
  });

  it('should forget the oldest window once it holds as many counters as allowed', async () => {
    sut = new MemoryRateLimitStorage(2);
    await sut.increment('oldest', MINUTE, 5);
    await sut.increment('middle', MINUTE, 5);
    await sut.increment('oldest', MINUTE, 5);
    await sut.increment('newest', MINUTE, 5);
    expect((await sut.peek('oldest')).totalHits).toBe(0);
    expect((await sut.peek('middle')).totalHits).toBe(1);
    expect((await sut.peek('newest')).totalHits).toBe(1);
  });
});
