import { Inject, Injectable, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { ApiException } from '../common/errors/api-exception.js';
import { rateLimitConfig, type RateLimitConfig } from '../config/rate-limit.config.js';
import {
  budgetReadsTracker,
  callerOf,
  counterKey,
  isUncountedRoute,
  refusedCredentialsTracker,
  WINDOW_NAMES,
  WINDOWS,
  type Tier,
  type WindowName,
} from './caller.js';
import { RATE_LIMIT_STORAGE, type RateLimitStorage } from './storage/rate-limit-storage.js';
import {
  isSpent,
  rateLimitExceeded,
  rateLimitHeaders,
  windowState,
  type LimitSetting,
  type WindowState,
} from './window-state.js';
import { RouteMetadata } from '../common/metadata/route-metadata.js';

export interface CallerBudget {
  tier: Tier;
  windows: WindowState[];
}

/** One counter a request spends in a window, and the limit it is refused past. */
export interface BudgetCounter {
  tracker: string;
  limit: number;
  setting: LimitSetting;
}

const TIER_VARIABLES: Record<Tier, string> = {
  'api-key': 'API_KEY',
  user: 'USER',
  anonymous: 'ANONYMOUS',
};

/** The caller's budget as GET /rate-limit reports it (RateLimitGuard spends it). */
@Injectable()
export class RateLimitService {
  constructor(
    @Inject(rateLimitConfig.KEY) private readonly config: RateLimitConfig,
    @Inject(RATE_LIMIT_STORAGE) private readonly storage: RateLimitStorage,
    private readonly reflector: RouteMetadata,
  ) {}

  /** Resolves when the counters can be reached (Redis, when REDIS_URL is set); readiness checks it. */
  pingCounters(): Promise<void> {
    return this.storage.ping();
  }

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
   * The 429 a credential gets instead of being looked up, when its client address has spent
   * a budget that bounds look-ups: its refused credentials (on every route), or its reads of
   * an uncounted route. Forged keys and budget reads then cost no database query.
   */
  async lookUpRefusal(context: ExecutionContext): Promise<ApiException | undefined> {
    const request = context.switchToHttp().getRequest<Request>();
    const bounds = [this.refusedCredentials(request)];
    if (isUncountedRoute(this.reflector, context)) bounds.push(this.budgetReads(request));
    for (const { tracker, limit, setting } of bounds) {
      const { totalHits, timeToExpire } = await this.storage.peek(counterKey('minute', tracker));
      // What this request would make of the window, were it counted.
      const state = windowState('minute', limit, totalHits + 1, timeToExpire || 60);
      if (isSpent(state)) return rateLimitExceeded(state, rateLimitHeaders([state]), setting);
    }
    return undefined;
  }

  /** The address's refused credentials: a missing credential is not one. */
  refusedCredentials(request: Request): BudgetCounter {
    return {
      tracker: refusedCredentialsTracker(request),
      limit: this.config.refusedCredentialsPerMinute,
      setting: this.setting('RATE_LIMIT_REFUSED_CREDENTIALS_PER_MINUTE'),
    };
  }

  /** The address's reads of an uncounted route with a valid credential. */
  budgetReads(request: Request): BudgetCounter {
    return {
      tracker: budgetReadsTracker(request),
      limit: this.config.budgetReadsPerMinute,
      setting: this.setting('RATE_LIMIT_BUDGET_READS_PER_MINUTE'),
    };
  }

  /** The variable that sets a tier's limit in a window (`RATE_LIMIT_USER_PER_MINUTE`). */
  tierSetting(tier: Tier, window: WindowName): LimitSetting {
    return this.setting(`RATE_LIMIT_${TIER_VARIABLES[tier]}_PER_${window.toUpperCase()}`);
  }

  /** A setting's name where a 429 names it: outside production. */
  private setting(name: string): LimitSetting {
    return this.config.nameSettings ? name : undefined;
  }
}
