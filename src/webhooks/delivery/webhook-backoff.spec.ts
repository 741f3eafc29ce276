import { describe, expect, it } from '@jest/globals';
import { MAX_RETRY_DELAY_MS, nextAttemptAfterFailure, retryDelayMs } from './webhook-backoff.js';

const HOUR = 3_600_000;
const config = { retryBaseMs: 10_000, retryForMs: 24 * HOUR };

describe(retryDelayMs.name, () => {
  it('should double its ceiling with each failed attempt', () => {
    const ceiling = () => 1 - Number.EPSILON;

    expect([1, 2, 3, 4].map((attempts) => retryDelayMs(attempts, 10_000, ceiling))).toEqual([
      9_999, 19_999, 39_999, 79_999,
    ]);
  });

  it('should draw anywhere between zero and the ceiling (full jitter)', () => {
    expect(retryDelayMs(3, 10_000, () => 0)).toBe(0);
    expect(retryDelayMs(3, 10_000, () => 0.5)).toBe(20_000);
    for (let i = 0; i < 100; i += 1) {
      const delay = retryDelayMs(3, 10_000);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(40_000);
    }
  });

  it('should never wait more than an hour, however many attempts failed', () => {
    expect(retryDelayMs(13, 10_000, () => 0.999)).toBe(Math.floor(0.999 * MAX_RETRY_DELAY_MS));
    expect(retryDelayMs(5_000, 10_000, () => 0.999)).toBe(Math.floor(0.999 * MAX_RETRY_DELAY_MS));
    expect(MAX_RETRY_DELAY_MS).toBe(HOUR);
  });
});

describe(nextAttemptAfterFailure.name, () => {
  const firstAttemptAt = new Date('2026-01-01T00:00:00.000Z');

  it('should schedule the next attempt after the jittered delay', () => {
    const now = new Date(firstAttemptAt.getTime() + 5_000);

    const next = nextAttemptAfterFailure({ attempts: 2, firstAttemptAt }, now, config, () => 0.5);

    expect(next).toEqual(new Date(now.getTime() + 10_000));
  });

  it('should keep retrying until 24 hours after the first attempt', () => {
    const now = new Date(firstAttemptAt.getTime() + 24 * HOUR - 1);

    expect(nextAttemptAfterFailure({ attempts: 40, firstAttemptAt }, now, config)).toBeInstanceOf(
      Date,
    );
  });

  it('should give up once 24 hours have passed since the first attempt', () => {
    const now = new Date(firstAttemptAt.getTime() + 24 * HOUR);

    expect(nextAttemptAfterFailure({ attempts: 40, firstAttemptAt }, now, config)).toBeUndefined();
  });
});
