import type { ThrottlerStorage } from '@nestjs/throttler';

/** What the throttler's storage answers per hit (the package's index does not export the type). */
export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

export interface WindowCount {
  totalHits: number;
  /** Seconds until the window resets (0 when no window has started). */
  timeToExpire: number;
}

/**
 * Fixed-window counters, one per caller and window, shared by every route: the
 * throttler's storage interface, plus what GET /rate-limit and readiness need.
 */
export interface RateLimitStorage extends ThrottlerStorage {
  /** Reads a counter without counting a hit. */
  peek(key: string): Promise<WindowCount>;
  /** Resolves when the counters can be reached; readiness checks it. */
  ping(): Promise<void>;
  onApplicationShutdown?(): void | Promise<void>;
}

export const RATE_LIMIT_STORAGE = Symbol('RATE_LIMIT_STORAGE');

/** The login lock-out's counters: apart from the rate limits', so that none evicts them. */
export const LOGIN_LOCKOUT_STORAGE = Symbol('LOGIN_LOCKOUT_STORAGE');

/**
 * The throttler's record for a fixed window: every hit is counted, and a caller over the
 * limit stays refused until the window resets (the block lasts as long as the window).
 */
export function windowRecord(
  totalHits: number,
  msToReset: number,
  limit: number,
): ThrottlerStorageRecord {
  const timeToExpire = Math.max(1, Math.ceil(msToReset / 1000));
  const isBlocked = totalHits > limit;
  return { totalHits, timeToExpire, isBlocked, timeToBlockExpire: isBlocked ? timeToExpire : 0 };
}
