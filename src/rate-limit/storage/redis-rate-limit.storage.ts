import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { messageOf } from '../../common/errors/message-of.js';
import {
  windowRecord,
  type RateLimitStorage,
  type ThrottlerStorageRecord,
  type WindowCount,
} from './rate-limit-storage.js';

// One round trip, atomic across instances: count the hit, start the window on the first.
const INCREMENT = `
local hits = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {hits, ttl}`;
const FAILURE_LOG_INTERVAL_MS = 10_000;

/**
 * Counters in Redis, so that every instance shares one budget per caller. When Redis is
 * unreachable each call is answered from `fallback`, this instance's memory, so that limits
 * hold per instance (never no limit); the outage is logged and counted through `onFallback`.
 * The client reconnects on its own and the shared counters take over again.
 */
export class RedisRateLimitStorage implements RateLimitStorage, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimit');
  private readonly redis: Redis & {
    rateLimitIncrement(key: string, windowMs: number): Promise<[number, number]>;
  };
  private readonly keyPrefix: string;
  private lastFailureLog = 0;

  constructor(
    url: string,
    keyPrefix: string,
    private readonly fallback: RateLimitStorage,
    private readonly onFallback: () => void,
  ) {
    this.keyPrefix = keyPrefix;
    const redis = new Redis(url, {
      // Fail fast instead of queueing while disconnected: a request must not wait on Redis.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 500,
      connectTimeout: 2_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    redis.on('error', (error: Error) => this.logFailure(error));
    redis.defineCommand('rateLimitIncrement', { numberOfKeys: 1, lua: INCREMENT });
    this.redis = redis as typeof this.redis;
  }

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    try {
      const [totalHits, msToReset] = await this.redis.rateLimitIncrement(this.keyPrefix + key, ttl);
      return windowRecord(totalHits, msToReset, limit);
    } catch (error) {
      this.fellBack(error);
      return this.fallback.increment(key, ttl, limit, blockDuration, throttlerName);
    }
  }

  async peek(key: string): Promise<WindowCount> {
    try {
      const [hits, msToReset] = await Promise.all([
        this.redis.get(this.keyPrefix + key),
        this.redis.pttl(this.keyPrefix + key),
      ]);
      return hits === null || msToReset < 0
        ? { totalHits: 0, timeToExpire: 0 }
        : { totalHits: Number(hits), timeToExpire: Math.ceil(msToReset / 1000) };
    } catch (error) {
      this.fellBack(error);
      return this.fallback.peek(key);
    }
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
    await this.fallback.onApplicationShutdown?.();
  }

  private fellBack(error: unknown): void {
    this.onFallback();
    this.logFailure(error);
  }

  private logFailure(error: unknown): void {
    const now = Date.now();
    if (now - this.lastFailureLog < FAILURE_LOG_INTERVAL_MS) return;
    this.lastFailureLog = now;
    this.logger.warn(
      `Redis unavailable, counting in this instance's memory until it is back: ${messageOf(error)}`,
    );
  }
}
