export interface WindowCount {
  totalHits: number;
  /** Milliseconds until the window resets (0 when no window has started). */
  msToReset: number;
}

/** Fixed-window counters, one per caller and window, shared by every route. */
export interface RateLimitStorage {
  /** Counts a hit, starting a window of `windowMs` when none is running. */
  increment(key: string, windowMs: number): Promise<WindowCount>;
  /** Reads a counter without counting a hit. */
  peek(key: string): Promise<WindowCount>;
  /** Resolves when the counters can be reached; readiness checks it. */
  ping(): Promise<void>;
}

export const RATE_LIMIT_STORAGE = Symbol('RATE_LIMIT_STORAGE');
