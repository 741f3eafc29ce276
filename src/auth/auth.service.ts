import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { AuditLog } from '../audit/audit-log.js';
import type { TxHost } from '../database/transactions.js';
import { LoginLockoutService } from '../rate-limit/login-lockout.service.js';
import { PasswordService } from '../users/password.service.js';
import { UserStatus } from '../users/user-status.js';
import { UsersService } from '../users/users.service.js';
import { AuthErrors } from './auth-errors.js';
import { LoginResponse } from './dto/login-response.dto.js';
import { LoginDto } from './dto/login.dto.js';
import type { SessionClient } from './sessions/session-client.decorator.js';
import { SessionsService, type IssuedRefreshToken } from './sessions/sessions.service.js';
import { TOKEN_TTL_SECONDS } from './strategies/jwt.strategy.js';
import { TokenService, type TokenSubject } from './token.service.js';

@Injectable()
export class AuthService {
  constructor(
    private readonly users: UsersService,
    private readonly passwords: PasswordService,
    private readonly tokens: TokenService,
    private readonly lockout: LoginLockoutService,
    private readonly sessions: SessionsService,
    private readonly audit: AuditLog,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {}

  /**
   * Unknown user, wrong password, inactive account and locked username all answer
   * INVALID_CREDENTIALS after one argon2 verification each, so that neither body nor
   * timing tells them apart; the right password of an account awaiting verification answers
   * EMAIL_NOT_VERIFIED. A login starts a session, recorded with it as `auth.login`; a
   * refused one is recorded without delaying the answer, with the username tried.
   */
  async login(dto: LoginDto, client: SessionClient): Promise<LoginResponse> {
    const [locked, user] = await Promise.all([
      this.lockout.isLocked(dto.username),
      this.users.findByUsername(dto.username),
    ]);
    const valid = await this.passwords.verifyPassword(user?.passwordHash, dto.password);
    // Only the right password learns that the address awaits verification.
    if (!locked && user && valid && user.userStatus === UserStatus.Pending) {
      this.audit.recordFailedLogin({ username: dto.username });
      throw AuthErrors.emailNotVerified();
    }
    if (locked || !user || !valid || user.userStatus !== UserStatus.Active) {
      this.audit.recordFailedLogin({ username: dto.username });
      await this.lockout.recordFailure(dto.username);
      throw AuthErrors.invalidCredentials();
    }
    const issued = await this.txHost.withTransaction(async () => {
      const session = await this.sessions.start(user.id, client);
      // The request carries no credential: the account logging in is the actor.
      await this.audit.record({
        action: 'auth.login',
        target: { type: 'session', id: session.sessionId },
        actor: { actorUserId: user.id, actorUsername: user.username, actorCredential: 'none' },
      });
      return session;
    });
    return this.loggedIn(user, issued);
  }

  /** The login answer again, for the session of `refreshToken`, which is spent. */
  async refresh(refreshToken: string): Promise<LoginResponse> {
    const issued = await this.sessions.refresh(refreshToken);
    // Deleting or deactivating a user ends its sessions; this covers one racing the refresh.
    const user = await this.users.findOne(issued.userId);
    if (user.userStatus !== UserStatus.Active) throw AuthErrors.invalidRefreshToken();
    return this.loggedIn(user, issued);
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
