import type { Response } from 'express';
import type { WindowName } from './caller.js';

export interface WindowState {
  window: WindowName;
  limit: number;
  remaining: number;
  /** Unix time in seconds when the window resets. */
  reset: number;
  /** Seconds to wait, when this window refused the request. */
  retryAfter?: number;
}

/** A window's state after `totalHits` requests, `secondsToReset` before it resets. */
export function windowState(
  window: WindowName,
  limit: number,
  totalHits: number,
  secondsToReset: number,
): WindowState {
  return {
    window,
    limit,
    remaining: Math.max(0, limit - totalHits),
    reset: Math.ceil(Date.now() / 1000) + secondsToReset,
    ...(totalHits > limit ? { retryAfter: secondsToReset } : {}),
  };
}

/** Headers for the window with the fewest requests left (the later reset on a tie). */
export function setRateLimitHeaders(res: Response, windows: WindowState[]): void {
  const tightest = windows.reduce((a, b) =>
    b.remaining < a.remaining || (b.remaining === a.remaining && b.reset > a.reset) ? b : a,
  );
  res.setHeader('X-RateLimit-Limit', tightest.limit);
  res.setHeader('X-RateLimit-Remaining', tightest.remaining);
  res.setHeader('X-RateLimit-Reset', tightest.reset);
}
