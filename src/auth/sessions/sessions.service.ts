import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { TtlCache } from '../../common/cache/ttl-cache.js';
import { deleteInBatches } from '../../common/scheduling/delete-in-batches.js';
import { ApiException } from '../../common/errors/api-exception.js';
import { authConfig, type AuthConfig } from '../../config/auth.config.js';
import type { TxHost } from '../../database/transactions.js';
import { DomainEvents } from '../../events/domain-events.js';
import { OnDomainEvent, RecurringJob } from '../../events/event-handlers.decorator.js';
import type { UserUpdated, UserUpdateOrigin } from '../../users/user-events.js';
import { UserLookupService } from '../../users/user-lookup.service.js';
import { AuthErrors } from '../auth-errors.js';
import { generateRefreshToken, hashRefreshToken, REFRESH_TOKEN_PATTERN } from './refresh-token.js';
import type { SessionClient } from './session-client.decorator.js';
import { SessionsRepository, type SessionRow } from './sessions.repository.js';

/** docs/api-decisions.md: the session list shows the newest this many. */
export const SESSIONS_LISTED = 100;

const LIVE_SESSIONS_MAX_ENTRIES = 10_000;

/** docs/api-decisions.md, 31: how long an ended session is kept before the sweep deletes it. */
export const ENDED_SESSION_RETENTION_SECONDS = 7 * 24 * 3600;
const SWEEP_INTERVAL_MS = 10 * 60_000;
// Deleted per statement, so that a large backlog never holds long locks.
const SWEEP_BATCH = 1_000;

/** Also ParseIdPipe's answer on the session routes, for ids that cannot exist. */
export const sessionNotFound = (id: number | string) =>
  new ApiException('SESSION_NOT_FOUND', `Session ${id} not found`);

/** A session and its refresh token, returned once: only its hash is stored. */
export interface IssuedRefreshToken {
  sessionId: number;
  userId: number;
  refreshToken: string;
}

/**
 * Refresh sessions (docs/identity.md, Sessions): one per login, its refresh token rotated
 * on every use, reuse of a spent one revoking the whole session. A recurring job deletes the
 * sessions ended past their retention every 10 minutes, on one instance at a time.
 */
@Injectable()
export class SessionsService {
  private readonly logger = new Logger('Sessions');
  // The session half of an access token's check, kept beside AccessStatesService's
  // account half with the same TTL: a session revoked on another instance stops its access
  // tokens within ACCESS_STATE_CACHE_TTL_MS (at most 60 s, docs/identity.md).
  private readonly liveSessions: TtlCache<number, boolean>;

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly users: UserLookupService,
    @Inject(authConfig.KEY) private readonly cfg: AuthConfig,
    private readonly events: DomainEvents,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {
    this.liveSessions = new TtlCache(cfg.accessStateCacheTtlMs, LIVE_SESSIONS_MAX_ENTRIES);
  }

  /** `refreshExpiresIn`: each use renews a refresh token's lifetime to this. */
  get refreshTtlSeconds(): number {
    return this.cfg.refreshTokenTtlSeconds;
  }

  /**
   * A password change or a deactivation (the changes that move the account's token cut-off)
   * revokes every session of the user, in the same transaction, each published as
   * `auth.session_revoked` with the change as its cause. Their access tokens are refused already, by the
   * cut-off.
   */
  @OnDomainEvent('user.updated')
  async revokeOnCutOff(event: UserUpdated): Promise<void> {
    if (!event.fields.includes('tokensValidAfter')) return;
    for (const id of await this.sessions.revokeAllOfUser(event.userId)) {
      await this.publishRevoked(id, event.userId, event.origin);
    }
  }

  async start(userId: number, client: SessionClient): Promise<IssuedRefreshToken> {
    const refreshToken = generateRefreshToken();
    const sessionId = await this.sessions.insert({
      userId,
      tokenHash: hashRefreshToken(refreshToken),
      ttlSeconds: this.cfg.refreshTokenTtlSeconds,
      ...client,
    });
    return { sessionId, userId, refreshToken };
  }

  /**
   * Spends `refreshToken` for a new one of the same session. Unknown, expired, revoked and
   * spent tokens all answer INVALID_REFRESH_TOKEN; a spent one revokes its session first.
   */
  async refresh(refreshToken: string): Promise<IssuedRefreshToken> {
    if (!REFRESH_TOKEN_PATTERN.test(refreshToken)) throw AuthErrors.invalidRefreshToken();
    const tokenHash = hashRefreshToken(refreshToken);
    const next = generateRefreshToken();
    const rotated = await this.sessions.rotate(
      tokenHash,
      hashRefreshToken(next),
      this.cfg.refreshTokenTtlSeconds,
    );
    if (!rotated) {
      this.forget(await this.sessions.revokeBySpentToken(tokenHash));
      throw AuthErrors.invalidRefreshToken();
    }
    return { sessionId: rotated.id, userId: rotated.userId, refreshToken: next };
  }

  /**
   * Revokes the session of a current or spent token, published as `auth.logged_out`; any
   * other token changes nothing, and publishes nothing.
   */
  async logout(refreshToken: string): Promise<void> {
    if (!REFRESH_TOKEN_PATTERN.test(refreshToken)) return;
    const revoked = await this.txHost.withTransaction(async () => {
      const sessions = await this.sessions.revokeByToken(hashRefreshToken(refreshToken));
      for (const { id, userId } of sessions) {
        await this.events.publish({
          type: 'auth.logged_out',
          subject: `session:${id}`,
          sessionId: id,
          userId,
        });
      }
      return sessions;
    });
    this.forget(revoked.map(({ id }) => id));
  }

  listActive(userId: number): Promise<SessionRow[]> {
    return this.sessions.findActiveOfUser(userId, SESSIONS_LISTED);
  }

  /** Someone else's session is reported as missing, so that session ids do not leak. */
  async revokeOwn(userId: number, id: number): Promise<void> {
    await this.txHost.withTransaction(async () => {
      if (!(await this.sessions.revokeOwned(userId, id))) throw sessionNotFound(id);
      await this.publishRevoked(id, userId);
    });
    this.forget([id]);
  }

  /**
   * Every session of the user; 404 USER_NOT_FOUND for an unknown user. One
   * `auth.session_revoked` names the user, however many sessions it had.
   */
  async revokeAllOfUser(userId: number): Promise<void> {
    await this.users.findOne(userId);
    const revoked = await this.txHost.withTransaction(async () => {
      const ids = await this.sessions.revokeAllOfUser(userId);
      await this.publishRevoked(null, userId);
      return ids;
    });
    this.forget(revoked);
  }

  /**
   * Whether access tokens of this session are still good. Cached for
   * ACCESS_STATE_CACHE_TTL_MS; revocations through this instance take effect at once.
   */
  async isLive(sessionId: number, userId: number): Promise<boolean> {
    const cached = this.liveSessions.get(sessionId);
    if (cached !== undefined) return cached;
    const live = await this.sessions.isLive(sessionId, userId);
    this.liveSessions.set(sessionId, live);
    return live;
  }

  /**
   * Deletes the sessions revoked or expired more than ENDED_SESSION_RETENTION_SECONDS ago,
   * with their spent tokens; how many.
   */
  removeEnded(): Promise<number> {
    return deleteInBatches(
      (limit) => this.sessions.deleteEnded(ENDED_SESSION_RETENTION_SECONDS, limit),
      SWEEP_BATCH,
    );
  }

  /** A recurring job (docs/jobs.md): a failure is logged and retried by the engine. */
  @RecurringJob('sessions.sweep', SWEEP_INTERVAL_MS)
  async sweep(): Promise<void> {
    const removed = await this.removeEnded();
    if (removed > 0) this.logger.debug(`Removed ${removed} ended sessions`);
  }

  private publishRevoked(sessionId: number | null, userId: number, cause?: UserUpdateOrigin) {
    return this.events.publish({
      type: 'auth.session_revoked',
      subject: sessionId === null ? `user:${userId}` : `session:${sessionId}`,
      sessionId,
      userId,
      ...(cause && { cause }),
    });
  }

  private forget(sessionIds: number[]): void {
    for (const id of sessionIds) this.liveSessions.delete(id);
  }
}
