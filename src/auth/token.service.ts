import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { randomUUID } from 'node:crypto';
import type { Role } from '../common/types/principal.js';
import { authConfig, type AuthConfig } from '../config/auth.config.js';
import {
  JWT_ALGORITHM,
  MFA_ENROLMENT_SCOPE,
  MFA_ENROLMENT_TOKEN_TTL_SECONDS,
  TOKEN_TTL_SECONDS,
} from './strategies/jwt.strategy.js';

export interface TokenSubject {
  id: number;
  username: string;
  role: Role;
  tokensValidAfter: Date | null;
}

@Injectable()
export class TokenService {
  constructor(
    private readonly jwt: JwtService,
    @Inject(authConfig.KEY) private readonly cfg: AuthConfig,
  ) {}

  /**
   * A token for the user's session: claims sub, username, role, sid (the session), jti;
   * exp = iat + TOKEN_TTL_SECONDS. `iat` counts
   * whole seconds, and a token of the second of the account's cut-off is refused (it may
   * predate it), so a login in that second is dated to the next one.
   */
  issue(user: TokenSubject, sessionId: number): string {
    return this.sign(user, { sid: String(sessionId) }, TOKEN_TTL_SECONDS);
  }

  /**
   * A token of no session that opens only the routes that enrol a second factor
   * (@MfaEnrolment), for an account that must have one and has none yet.
   */
  issueEnrolment(user: TokenSubject): string {
    return this.sign(user, { scope: MFA_ENROLMENT_SCOPE }, MFA_ENROLMENT_TOKEN_TTL_SECONDS);
  }

  private sign(user: TokenSubject, claims: Record<string, string>, ttlSeconds: number): string {
    const now = Math.floor(Date.now() / 1000);
    const cutOff = user.tokensValidAfter
      ? Math.floor(user.tokensValidAfter.getTime() / 1000)
      : -Infinity;
    return this.jwt.sign(
      {
        username: user.username,
        role: user.role,
        ...claims,
        iat: Math.max(now, cutOff + 1),
      },
      {
        algorithm: JWT_ALGORITHM,
        subject: String(user.id),
        jwtid: randomUUID(),
        expiresIn: ttlSeconds,
        issuer: this.cfg.jwtIssuer,
        audience: this.cfg.jwtAudience,
      },
    );
  }
}
