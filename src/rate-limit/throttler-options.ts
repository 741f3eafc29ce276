import type { ExecutionContext } from '@nestjs/common';
import type { ThrottlerModuleOptions } from '@nestjs/throttler';
import type { Request } from 'express';
import type { RateLimitConfig } from '../config/rate-limit.config.js';
import { callerOf, WINDOW_NAMES, WINDOWS } from './caller.js';
import type { RateLimitStorage } from './storage/rate-limit-storage.js';

/**
 * Two named throttlers, `minute` and `hour`, each with the limit of the caller's tier
 * (API key, user, anonymous) from configuration, counted in the project's own storage
 * (memory, or Redis shared by every instance). RateLimitGuard sets the headers itself:
 * docs/rate-limits.md wants those of the tightest window only.
 */
export function throttlerOptions(
  config: RateLimitConfig,
  storage: RateLimitStorage,
): ThrottlerModuleOptions {
  return {
    storage,
    setHeaders: false,
    throttlers: WINDOW_NAMES.map((name) => ({
      name,
      ttl: WINDOWS[name],
      limit: (context: ExecutionContext) =>
        config.tiers[callerOf(context.switchToHttp().getRequest<Request>()).tier][name],
    })),
  };
}
