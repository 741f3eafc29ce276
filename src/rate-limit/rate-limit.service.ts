import { Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { rateLimitConfig, type RateLimitConfig } from '../config/rate-limit.config.js';
import { callerOf, counterKey, WINDOWS, type Tier, type WindowName } from './caller.js';
import {
  RATE_LIMIT_STORAGE,
  type RateLimitStorage,
  type WindowCount,
} from './storage/rate-limit-storage.js';
import type { WindowState } from './window-state.js';

export interface CallerBudget {
  tier: Tier;
  windows: WindowState[];
}

const WINDOW_NAMES = Object.keys(WINDOWS) as WindowName[];

@Injectable()
export class RateLimitService {
  constructor(
    @Inject(rateLimitConfig.KEY) private readonly config: RateLimitConfig,
    @Inject(RATE_LIMIT_STORAGE) private readonly storage: RateLimitStorage,
  ) {}

  /** Spends one request from every window of the caller's budget. */
  consume(request: Request): Promise<CallerBudget> {
    return this.budget(request, (key, window) => this.storage.increment(key, WINDOWS[window]));
  }

  /** The caller's budget in every window, read without spending any of it. */
  status(request: Request): Promise<CallerBudget> {
    return this.budget(request, (key) => this.storage.peek(key));
  }

  private async budget(
    request: Request,
    count: (key: string, window: WindowName) => Promise<WindowCount>,
  ): Promise<CallerBudget> {
    const { tier, tracker } = callerOf(request);
    const now = Date.now();
    const windows = await Promise.all(
      WINDOW_NAMES.map(async (window): Promise<WindowState> => {
        const limit = this.config.tiers[tier][window];
        const { totalHits, msToReset } = await count(counterKey(window, tracker), window);
        const secondsToReset = Math.max(1, Math.ceil((msToReset || WINDOWS[window]) / 1000));
        return {
          window,
          limit,
          remaining: Math.max(0, limit - totalHits),
          reset: Math.ceil(now / 1000) + secondsToReset,
          ...(totalHits > limit ? { retryAfter: secondsToReset } : {}),
        };
      }),
    );
    return { tier, windows };
  }
}
