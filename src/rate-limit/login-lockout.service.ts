import { Inject, Injectable } from '@nestjs/common';
import { rateLimitConfig, type RateLimitConfig } from '../config/rate-limit.config.js';
import { LOGIN_LOCKOUT_STORAGE, type RateLimitStorage } from './storage/rate-limit-storage.js';

/**
 * Failed logins per username, in counters of their own (shared by every instance with
 * Redis; never evicted early in memory), so that one account cannot be guessed from many
 * addresses: after
 * `LOGIN_LOCKOUT_FAILURES` failures the username is locked until the window that the first
 * of them started (`LOGIN_LOCKOUT_SECONDS`) ends.
 */
@Injectable()
export class LoginLockoutService {
  constructor(
    @Inject(rateLimitConfig.KEY) private readonly config: RateLimitConfig,
    @Inject(LOGIN_LOCKOUT_STORAGE) private readonly storage: RateLimitStorage,
  ) {}

  async isLocked(username: string): Promise<boolean> {
    const { totalHits } = await this.storage.peek(this.keyOf(username));
    return totalHits >= this.config.loginLockout.failures;
  }

  async recordFailure(username: string): Promise<void> {
    const { failures, seconds } = this.config.loginLockout;
    await this.storage.increment(this.keyOf(username), seconds * 1000, failures, 0, 'login');
  }

  // Login matches usernames case-insensitively, so the lock does too.
  private keyOf(username: string): string {
    return `login-failures:${username.toLowerCase()}`;
  }
}
