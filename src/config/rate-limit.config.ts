import { registerAs, type ConfigType } from '@nestjs/config';
import type { EnvironmentVariables } from './env.schema.js';
import { loadEnv } from './load-env.js';

export const rateLimitConfig = registerAs('rateLimit', (env: EnvironmentVariables = loadEnv()) => ({
  redisUrl: env.REDIS_URL,
  redisKeyPrefix: env.REDIS_KEY_PREFIX,
  memoryMaxCounters: env.RATE_LIMIT_MEMORY_MAX_COUNTERS,
  refusedCredentialsPerMinute: env.RATE_LIMIT_REFUSED_CREDENTIALS_PER_MINUTE,
  budgetReadsPerMinute: env.RATE_LIMIT_BUDGET_READS_PER_MINUTE,
  // Outside production a 429 names the variable that sets the limit it met (docs/rate-limits.md).
  nameSettings: env.NODE_ENV !== 'production',
  loginLockout: { failures: env.LOGIN_LOCKOUT_FAILURES, seconds: env.LOGIN_LOCKOUT_SECONDS },
  tiers: {
    'api-key': {
      hour: env.RATE_LIMIT_API_KEY_PER_HOUR,
      minute: env.RATE_LIMIT_API_KEY_PER_MINUTE,
    },
    user: { hour: env.RATE_LIMIT_USER_PER_HOUR, minute: env.RATE_LIMIT_USER_PER_MINUTE },
    anonymous: {
      hour: env.RATE_LIMIT_ANONYMOUS_PER_HOUR,
      minute: env.RATE_LIMIT_ANONYMOUS_PER_MINUTE,
    },
  },
}));

export type RateLimitConfig = ConfigType<typeof rateLimitConfig>;
