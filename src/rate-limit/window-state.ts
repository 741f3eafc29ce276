import type { Response } from 'express';
import { ApiException } from '../common/errors/api-exception.js';
import type { WindowName } from './caller.js';
import {
  RATE_LIMIT_LIMIT_HEADER,
  RATE_LIMIT_REMAINING_HEADER,
  RATE_LIMIT_RESET_HEADER,
} from '../common/http/header-names.js';

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

export type SpentWindow = WindowState & { retryAfter: number };

/**
 * The variable that sets a counter's limit, named in its 429 outside production so that a
 * developer who meets it knows what to raise; `undefined` in production.
 */
export type LimitSetting = string | undefined;

export const isSpent = <T extends WindowState>(state: T): state is T & SpentWindow =>
  state.retryAfter !== undefined;

/** Headers for the window with the fewest requests left (the later reset on a tie). */
export function rateLimitHeaders(windows: WindowState[]): Record<string, string> {
  const tightest = windows.reduce((a, b) =>
    b.remaining < a.remaining || (b.remaining === a.remaining && b.reset > a.reset) ? b : a,
  );
  return {
    [RATE_LIMIT_LIMIT_HEADER]: String(tightest.limit),
    [RATE_LIMIT_REMAINING_HEADER]: String(tightest.remaining),
    [RATE_LIMIT_RESET_HEADER]: String(tightest.reset),
  };
}

export function setRateLimitHeaders(res: Response, windows: WindowState[]): void {
  for (const [name, value] of Object.entries(rateLimitHeaders(windows))) res.setHeader(name, value);
}

/** The 429 for a spent window: `Retry-After` and the details of docs/rate-limits.md. */
export function rateLimitExceeded(
  spent: SpentWindow,
  headers: Record<string, string> = {},
  setting?: LimitSetting,
): ApiException {
  const raise = setting ? `; in development, set ${setting} to raise it` : '';
  return ApiException.retryLater(
    'RATE_LIMIT_EXCEEDED',
    `Rate limit of ${spent.limit} requests per ${spent.window} exceeded; retry in ${spent.retryAfter} s${raise}`,
    spent.retryAfter,
    { limit: spent.limit, window: spent.window, retryAfter: spent.retryAfter },
    headers,
  );
}
