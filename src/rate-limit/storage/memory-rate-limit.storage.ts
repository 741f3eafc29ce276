import type { OnApplicationShutdown } from '@nestjs/common';
import type { RateLimitStorage, WindowCount } from './rate-limit-storage.js';

interface Counter {
  hits: number;
  resetAt: number;
}

const SWEEP_INTERVAL_MS = 60_000;

/** One process's counters: a map entry per caller and window, swept once a minute. */
export class MemoryRateLimitStorage implements RateLimitStorage, OnApplicationShutdown {
  private readonly counters = new Map<string, Counter>();
  private readonly sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();

  increment(key: string, windowMs: number): Promise<WindowCount> {
    const now = Date.now();
    let counter = this.counters.get(key);
    if (!counter || counter.resetAt <= now) {
      counter = { hits: 0, resetAt: now + windowMs };
      this.counters.set(key, counter);
    }
    counter.hits += 1;
    return Promise.resolve({ totalHits: counter.hits, msToReset: counter.resetAt - now });
  }

  peek(key: string): Promise<WindowCount> {
    const now = Date.now();
    const counter = this.counters.get(key);
    if (!counter || counter.resetAt <= now) return Promise.resolve({ totalHits: 0, msToReset: 0 });
    return Promise.resolve({ totalHits: counter.hits, msToReset: counter.resetAt - now });
  }

  ping(): Promise<void> {
    return Promise.resolve();
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, counter] of this.counters) {
      if (counter.resetAt <= now) this.counters.delete(key);
    }
  }
}
