import { Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { rateLimitConfig, type RateLimitConfig } from '../config/rate-limit.config.js';
import {
  addressTracker,
  callerOf,
  counterKey,
  WINDOW_NAMES,
  WINDOWS,
  type Tier,
} from './caller.js';
import { RATE_LIMIT_STORAGE, type RateLimitStorage } from './storage/rate-limit-storage.js';
import { windowState, type WindowState } from './window-state.js';

export interface CallerBudget {
  tier: Tier;
  windows: WindowState[];
}

/** The caller's budget as GET /rate-limit reports it (RateLimitGuard spends it). */
@Injectable()
export class RateLimitService {
  constructor(
    @Inject(rateLimitConfig.KEY) private readonly config: RateLimitConfig,
    @Inject(RATE_LIMIT_STORAGE) private readonly storage: RateLimitStorage,
  ) {}

  /** The caller's budget in every window, read without spending any of it. */
  async status(request: Request): Promise<CallerBudget> {
    const { tier, tracker } = callerOf(request);
    const windows = await Promise.all(
      WINDOW_NAMES.map(async (window) => {
        const { totalHits, timeToExpire } = await this.storage.peek(counterKey(window, tracker));
        const limit = this.config.tiers[tier][window];
        return windowState(window, limit, totalHits, timeToExpire || WINDOWS[window] / 1000);
      }),
    );
    return { tier, windows };
  }

  /**
   * Whether the client address has used up a window of the anonymous budget, which every
   * missing or refused credential spends. A credential it sends is then refused without
   * being looked up, so that forged API keys cost no database query past the limit.
   */
  async addressExhausted(request: Request): Promise<boolean> {
    const tracker = addressTracker(request);
    const spent = await Promise.all(
      WINDOW_NAMES.map(async (window) => {
        const { totalHits } = await this.storage.peek(counterKey(window, tracker));
        return totalHits >= this.config.tiers.anonymous[window];
      }),
    );
    return spent.includes(true);
  }
}
