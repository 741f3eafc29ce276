import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { messageOf } from '../common/errors/message-of.js';
import { deleteInBatches } from '../common/scheduling/delete-in-batches.js';
import { PeriodicTask } from '../common/scheduling/periodic-task.js';
import { authConfig, type AuthConfig } from '../config/auth.config.js';
import { UsersService } from './users.service.js';

const SWEEP_INTERVAL_MS = 10 * 60_000;
// Removed per transaction: each account is an event and an audit entry, so batches stay short.
const SWEEP_BATCH = 100;

/**
 * Sign-ups left unverified for UNVERIFIED_ACCOUNT_TTL_HOURS are removed, so that nobody keeps
 * a username or someone else's address by signing up with it (docs/identity.md). Each
 * instance sweeps every 10 minutes; concurrent sweeps skip each other's rows.
 */
@Injectable()
export class SignUpExpiryService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Users');
  private readonly sweeper = new PeriodicTask(() => this.sweep(), SWEEP_INTERVAL_MS);

  constructor(
    private readonly users: UsersService,
    @Inject(authConfig.KEY) private readonly cfg: AuthConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.sweeper.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.sweeper.stop();
  }

  /** Removes every sign-up unverified past its time; how many. */
  removeExpired(): Promise<number> {
    const ttlSeconds = this.cfg.unverifiedAccountTtlHours * 3600;
    return deleteInBatches(
      (limit) => this.users.removeUnverifiedSignUps(ttlSeconds, limit),
      SWEEP_BATCH,
    );
  }

  private async sweep(): Promise<void> {
    try {
      const removed = await this.removeExpired();
      if (removed > 0) this.logger.debug(`Removed ${removed} unverified sign-ups`);
    } catch (error) {
      // The next sweep tries again.
      this.logger.warn(`Unverified sign-ups not removed: ${messageOf(error)}`);
    }
  }
}
