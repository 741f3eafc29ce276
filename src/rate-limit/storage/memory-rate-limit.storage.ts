import type { OnApplicationShutdown } from '@nestjs/common';
import {
  windowRecord,
  type RateLimitStorage,
  type ThrottlerStorageRecord,
  type WindowCount,
} from './rate-limit-storage.js';

interface Counter {
  hits: number;
  resetAt: number;
}

const SWEEP_INTERVAL_MS = 60_000;

/**
 * One process's counters: a map entry per caller and window, swept once a minute and
 * capped at `maxCounters` (`Infinity` for none), so that many distinct callers cannot grow
 * it without bound: past the cap the oldest window is forgotten (that caller starts a fresh
 * one).
 */
export class MemoryRateLimitStorage implements RateLimitStorage, OnApplicationShutdown {
  private readonly counters = new Map<string, Counter>();
  private readonly sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();

  constructor(private readonly maxCounters: number) {}

  increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const now = Date.now();
    let counter = this.counters.get(key);
    if (!counter || counter.resetAt <= now) {
      counter = { hits: 0, resetAt: now + ttl };
      // Re-inserted, so that the map's order stays the order in which windows started.
      this.counters.delete(key);
      this.counters.set(key, counter);
      if (this.counters.size > this.maxCounters) this.evictOldest();
    }
    counter.hits += 1;
    return Promise.resolve(windowRecord(counter.hits, counter.resetAt - now, limit));
  }

  peek(key: string): Promise<WindowCount> {
    const now = Date.now();
    const counter = this.counters.get(key);
    if (!counter || counter.resetAt <= now) {
      return Promise.resolve({ totalHits: 0, timeToExpire: 0 });
    }
    return Promise.resolve({
      totalHits: counter.hits,
      timeToExpire: Math.ceil((counter.resetAt - now) / 1000),
    });
  }

  ping(): Promise<void> {
    return Promise.resolve();
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
  }

  private evictOldest(): void {
    const oldest = this.counters.keys().next();
    if (!oldest.done) this.counters.delete(oldest.value);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, counter] of this.counters) {
      if (counter.resetAt <= now) this.counters.delete(key);
    }
  }
}
