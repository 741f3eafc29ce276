import { Inject, Injectable } from '@nestjs/common';
import { TtlCache } from '../common/cache/ttl-cache.js';
import { authConfig, type AuthConfig } from '../config/auth.config.js';
import { afterCommit } from '../database/transactions.js';
import { OnDomainEvent } from '../events/event-handlers.decorator.js';
import type { UserDeleted, UserUpdated } from '../users/user-events.js';
import { UserLookupService, type AccessState } from '../users/user-lookup.service.js';

const ACCESS_STATES_MAX_ENTRIES = 10_000;

/**
 * The account half of a bearer token's check: its user's status, role and token cut-off.
 * Tokens of disabled or deleted accounts, and those issued before a password change, must
 * stop working within 60 s (docs/identity.md): the cache (at most 60 s, configured) spares
 * the database a query per token request. A change made through this instance takes effect
 * at once: its user's entry is forgotten once the change commits.
 */
@Injectable()
export class AccessStatesService {
  private readonly states: TtlCache<number, AccessState | null>;

  constructor(
    private readonly users: UserLookupService,
    @Inject(authConfig.KEY) cfg: AuthConfig,
  ) {
    this.states = new TtlCache(cfg.accessStateCacheTtlMs, ACCESS_STATES_MAX_ENTRIES);
  }

  /** Null when the user is deleted. Cached for ACCESS_STATE_CACHE_TTL_MS. */
  async of(userId: number): Promise<AccessState | null> {
    const cached = this.states.get(userId);
    if (cached !== undefined) return cached;
    const state = await this.users.accessStateOf(userId);
    this.states.set(userId, state);
    return state;
  }

  @OnDomainEvent('user.updated', 'user.deleted')
  forgetOnCommit(event: UserUpdated | UserDeleted): void {
    afterCommit(() => this.states.delete(event.userId));
  }
}
