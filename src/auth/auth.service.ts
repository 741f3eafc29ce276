import { Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { ApiException } from '../common/errors/api-exception.js';
import { messageOf } from '../common/errors/message-of.js';
import type { TxHost } from '../database/transactions.js';
import { DomainEvents } from '../events/domain-events.js';
import { LoginLockoutService } from '../rate-limit/login-lockout.service.js';
import { awaitsVerification, canUseCredentials } from '../users/user-lifecycle.js';
import { UserLookupService } from '../users/user-lookup.service.js';
import { AuthErrors } from './auth-errors.js';
import { LoginResponse } from './dto/login-response.dto.js';
import { LoginDto } from './dto/login.dto.js';
import type { VerifyMfaDto } from './mfa/dto/mfa-proof.dto.js';
import { MfaErrors } from './mfa/mfa-errors.js';
import type { PasskeyLoginDto } from './passkeys/dto/passkey.dto.js';
import { MFA_TOKEN_TTL_SECONDS, MfaService } from './mfa/mfa.service.js';
import type { SessionClient } from './sessions/session-client.decorator.js';
import { SessionsService, type IssuedRefreshToken } from './sessions/sessions.service.js';
import { MFA_ENROLMENT_TOKEN_TTL_SECONDS, TOKEN_TTL_SECONDS } from './strategies/jwt.strategy.js';
import { TokenService, type TokenSubject } from './token.service.js';

@Injectable()
export class AuthService implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Auth');
  private readonly failuresBeingPublished = new Set<Promise<void>>();

  constructor(
    private readonly users: UserLookupService,
    private readonly tokens: TokenService,
    private readonly lockout: LoginLockoutService,
    private readonly sessions: SessionsService,
    private readonly mfa: MfaService,
    private readonly events: DomainEvents,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {}

  /**
   * Unknown user, wrong password, inactive account and locked username all answer
   * INVALID_CREDENTIALS after one argon2 verification each, so that neither body nor
   * timing tells them apart; the right password of an account awaiting verification answers
   * EMAIL_NOT_VERIFIED. A login starts a session and publishes `auth.logged_in` with it; a
   * refused one publishes `auth.login_failed`, with the username tried, without delaying
   * the answer.
   */
  async login(dto: LoginDto, client: SessionClient): Promise<LoginResponse> {
    const [locked, user] = await Promise.all([
      this.lockout.isLocked(dto.username),
      this.users.findByUsername(dto.username),
    ]);
    const valid = await this.users.verifyPassword(user?.passwordHash, dto.password);
    // Only the right password learns that the address awaits verification.
    if (!locked && user && valid && awaitsVerification(user.userStatus)) {
      this.publishFailure(dto.username);
      throw AuthErrors.emailNotVerified();
    }
    if (locked || !user || !valid || !canUseCredentials(user.userStatus)) {
      this.publishFailure(dto.username);
      await this.lockout.recordFailure(dto.username);
      throw AuthErrors.invalidCredentials();
    }
    const methods = await this.mfa.methodsOf(user.id);
    if (methods.length > 0) {
      throw MfaErrors.required(await this.mfa.startLogin(user.id), MFA_TOKEN_TTL_SECONDS, methods);
    }
    if (this.mfa.requiredFor(user.role)) {
      throw MfaErrors.enrolmentRequired({
        enrolmentToken: this.tokens.issueEnrolment(user),
        expiresIn: MFA_ENROLMENT_TOKEN_TTL_SECONDS,
      });
    }
    const issued = await this.txHost.withTransaction(() => this.startSession(user, client));
    return this.loggedIn(user, issued);
  }

  /**
   * A login's second step: spends its `mfaToken` with a code and starts the session, in one
   * transaction; a refusal is answered once its counting has committed.
   */
  async verifyMfa(dto: VerifyMfaDto, client: SessionClient): Promise<LoginResponse> {
    const outcome = await this.txHost.withTransaction(
      async (): Promise<LoginResponse | ApiException> => {
        const completed = await this.mfa.completeLogin(dto.mfaToken, dto);
        if (completed.error) return completed.error;
        return this.loggedIn(completed.user, await this.startSession(completed.user, client));
      },
    );
    if (outcome instanceof ApiException) throw outcome;
    return outcome;
  }

  /**
   * A sign-in with a passkey alone: spends its challenge, checks the assertion and starts the
   * session, in one transaction; a refusal is answered once its counting has committed.
   */
  async loginWithPasskey(dto: PasskeyLoginDto, client: SessionClient): Promise<LoginResponse> {
    const outcome = await this.txHost.withTransaction(
      async (): Promise<LoginResponse | ApiException> => {
        const completed = await this.mfa.completePasskeyLogin(dto.credential);
        if (completed.error) return completed.error;
        return this.loggedIn(completed.user, await this.startSession(completed.user, client));
      },
    );
    if (outcome instanceof ApiException) throw outcome;
    return outcome;
  }

  /** The login answer again, for the session of `refreshToken`, which is spent. */
  async refresh(refreshToken: string): Promise<LoginResponse> {
    const issued = await this.sessions.refresh(refreshToken);
    // Deleting or deactivating a user ends its sessions; this covers one racing the refresh.
    const user = await this.users.findOne(issued.userId);
    if (!canUseCredentials(user.userStatus)) throw AuthErrors.invalidRefreshToken();
    return this.loggedIn(user, issued);
  }

  private async startSession(
    user: TokenSubject & { email: string },
    client: SessionClient,
  ): Promise<IssuedRefreshToken> {
    const session = await this.sessions.start(user.id, client);
    await this.events.publish({
      type: 'auth.logged_in',
      subject: `session:${session.sessionId}`,
      sessionId: session.sessionId,
      userId: user.id,
      username: user.username,
    });
    return session;
  }

  /** Lets the refused logins being published finish before the database closes. */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.failuresBeingPublished);
  }

  /**
   * In a transaction of its own, not awaited: a slow or failing database neither delays
   * nor fails the 401, and on the embedded database, whose one connection another
   * transaction may hold, it simply waits for it. A failure to publish is logged.
   */
  private publishFailure(username: string): void {
    const publishing = this.txHost
      .withTransaction(() =>
        this.events.publish({ type: 'auth.login_failed', subject: `login:${username}`, username }),
      )
      .catch((error: unknown) =>
        this.logger.warn(`Failed login not recorded: ${messageOf(error)}`),
      );
    this.failuresBeingPublished.add(publishing);
    void publishing.finally(() => this.failuresBeingPublished.delete(publishing));
  }

  private loggedIn(
    user: TokenSubject & { email: string },
    issued: IssuedRefreshToken,
  ): LoginResponse {
    return {
      token: this.tokens.issue(user, issued.sessionId),
      user: { id: user.id, username: user.username, email: user.email },
      expiresIn: TOKEN_TTL_SECONDS,
      refreshToken: issued.refreshToken,
      refreshExpiresIn: this.sessions.refreshTtlSeconds,
    };
  }
}
