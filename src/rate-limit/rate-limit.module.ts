import { Module } from '@nestjs/common';
import { rateLimitConfig, type RateLimitConfig } from '../config/rate-limit.config.js';
import { LoginLockoutService } from './login-lockout.service.js';
import { RateLimitController } from './rate-limit.controller.js';
import { RateLimitService } from './rate-limit.service.js';
import { MemoryRateLimitStorage } from './storage/memory-rate-limit.storage.js';
import { RATE_LIMIT_STORAGE, type RateLimitStorage } from './storage/rate-limit-storage.js';
import { RedisRateLimitStorage } from './storage/redis-rate-limit.storage.js';

@Module({
  controllers: [RateLimitController],
  providers: [
    RateLimitService,
    LoginLockoutService,
    {
      // Counters in memory by default, in Redis (shared by every instance) with REDIS_URL.
      provide: RATE_LIMIT_STORAGE,
      inject: [rateLimitConfig.KEY],
      useFactory: (config: RateLimitConfig): RateLimitStorage =>
        config.redisUrl
          ? new RedisRateLimitStorage(config.redisUrl, config.redisKeyPrefix)
          : new MemoryRateLimitStorage(config.memoryMaxCounters),
    },
  ],
  exports: [RateLimitService, LoginLockoutService, RATE_LIMIT_STORAGE],
})
export class RateLimitModule {}
