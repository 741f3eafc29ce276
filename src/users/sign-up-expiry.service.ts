import { Inject, Injectable, Logger } from '@nestjs/common';
import { deleteInBatches } from '../common/scheduling/delete-in-batches.js';
import { authConfig, type AuthConfig } from '../config/auth.config.js';
import { RecurringJob } from '../events/event-handlers.decorator.js';
import { UsersService } from './users.service.js';

const SWEEP_INTERVAL_MS = 10 * 60_000;
// Removed per transaction: each account is an event and an audit entry, so batches stay short.
const SWEEP_BATCH = 100;

/**
 * Sign-ups left unverified for UNVERIFIED_ACCOUNT_TTL_HOURS are removed, so that nobody keeps
 * a username or someone else's address by signing up with it (docs/identity.md): a recurring
 * job sweeps every 10 minutes, on one instance at a time (docs/jobs.md).
 */
@Injectable()
export class SignUpExpiryService {
  private readonly logger = new Logger('Users');

  constructor(
    private readonly users: UsersService,
    @Inject(authConfig.KEY) private readonly cfg: AuthConfig,
  ) {}

  /** Removes every sign-up unverified past its time; how many. */
  removeExpired(): Promise<number> {
    const ttlSeconds = this.cfg.unverifiedAccountTtlHours * 3600;
    return deleteInBatches(
      (limit) => this.users.removeUnverifiedSignUps(ttlSeconds, limit),
      SWEEP_BATCH,
    );
  }

  /** A failure is logged and retried by the job engine. */
  @RecurringJob('users.sign-up-expiry', SWEEP_INTERVAL_MS)
  async sweep(): Promise<void> {
    const removed = await this.removeExpired();
    if (removed > 0) this.logger.debug(`Removed ${removed} unverified sign-ups`);
  }
}
