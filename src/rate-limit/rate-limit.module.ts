import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { RouteMetadataModule } from '../common/metadata/route-metadata.js';
import { rateLimitConfig, type RateLimitConfig } from '../config/rate-limit.config.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { LoginLockoutService } from './login-lockout.service.js';
import { RateLimitController } from './rate-limit.controller.js';
import { RateLimitService } from './rate-limit.service.js';
import { MemoryRateLimitStorage } from './storage/memory-rate-limit.storage.js';
import {
  LOGIN_LOCKOUT_STORAGE,
  RATE_LIMIT_STORAGE,
  type RateLimitStorage,
} from './storage/rate-limit-storage.js';
import { RedisRateLimitStorage } from './storage/redis-rate-limit.storage.js';
import { throttlerOptions } from './throttler-options.js';

/**
 * Counters in memory by default, in Redis (shared by every instance) with REDIS_URL, falling
 * back to memory while Redis is unreachable. `namespace` keeps the two stores' keys apart.
 */
function counters(
  config: RateLimitConfig,
  metrics: MetricsService,
  namespace: string,
  memory: () => MemoryRateLimitStorage,
): RateLimitStorage {
  if (!config.redisUrl) return memory();
  return new RedisRateLimitStorage(
    config.redisUrl,
    `${config.redisKeyPrefix}${namespace}:`,
    memory(),
    () => metrics.countRateLimitFallback(),
  );
}

// MetricsModule is global in the app; imported here for contexts without it (the CLI).
@Module({
  imports: [MetricsModule, RouteMetadataModule],
  controllers: [RateLimitController],
  providers: [
    RateLimitService,
    LoginLockoutService,
    {
      // Capped, so that many distinct callers cannot grow memory without bound.
      provide: RATE_LIMIT_STORAGE,
      inject: [rateLimitConfig.KEY, MetricsService],
      useFactory: (config: RateLimitConfig, metrics: MetricsService) =>
        counters(config, metrics, 'rl', () => new MemoryRateLimitStorage(config.memoryMaxCounters)),
    },
    {
      // Never capped: a lock must last its window, however many other counters arrive. Its
      // counters are bounded by the failed logins that the address budgets let through.
      provide: LOGIN_LOCKOUT_STORAGE,
      inject: [rateLimitConfig.KEY, MetricsService],
      useFactory: (config: RateLimitConfig, metrics: MetricsService) =>
        counters(config, metrics, 'lockout', () => new MemoryRateLimitStorage(Infinity)),
    },
  ],
  exports: [RateLimitService, LoginLockoutService, RATE_LIMIT_STORAGE],
})
export class RateLimitModule {}

/**
 * The throttler that RateLimitGuard extends, counting in this module's store so that GET
 * /rate-limit and readiness see the guard's counts. AppModule imports it once.
 */
export const RateLimitThrottlerModule = ThrottlerModule.forRootAsync({
  imports: [RateLimitModule],
  inject: [rateLimitConfig.KEY, RATE_LIMIT_STORAGE],
  useFactory: throttlerOptions,
});
