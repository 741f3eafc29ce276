import { Inject, Injectable } from '@nestjs/common';
import { JwtService, TokenExpiredError } from '@nestjs/jwt';
import { randomUUID } from 'node:crypto';
import type { ApiException } from '../common/errors/api-exception.js';
import { ROLES, type Role } from '../common/types/principal.js';
import { authConfig, TOKEN_TTL_SECONDS, type AuthConfig } from '../config/auth.config.js';
import { AuthErrors } from './auth-errors.js';

/** The only algorithm signed with and accepted: never `none`, never the token's choice. */
const ALGORITHM = 'HS256';

export interface TokenSubject {
  id: number;
  username: string;
  role: Role;
}

export interface VerifiedToken {
  userId: number;
  username: string;
  role: Role;
  jti: string;
}

export type TokenCheck = { ok: true; token: VerifiedToken } | { ok: false; error: ApiException };

interface Claims {
  sub?: unknown;
  username?: unknown;
  role?: unknown;
  jti?: unknown;
  exp?: unknown;
  iat?: unknown;
}

@Injectable()
export class TokenService {
  constructor(
    private readonly jwt: JwtService,
    @Inject(authConfig.KEY) private readonly cfg: AuthConfig,
  ) {}

  /** A token for the user: claims sub, username, role, jti; exp = iat + 3600. */
  issue(user: TokenSubject): string {
    return this.jwt.sign(
      { username: user.username, role: user.role },
      {
        algorithm: ALGORITHM,
        subject: String(user.id),
        jwtid: randomUUID(),
        expiresIn: TOKEN_TTL_SECONDS,
        issuer: this.cfg.jwtIssuer,
        audience: this.cfg.jwtAudience,
      },
    );
  }

  /** Signature, algorithm, issuer, audience and expiry; the account is checked elsewhere. */
  verify(token: string, now: Date = new Date()): TokenCheck {
    let claims: Claims;
    try {
      claims = this.jwt.verify<Claims>(token, {
        algorithms: [ALGORITHM],
        issuer: this.cfg.jwtIssuer,
        audience: this.cfg.jwtAudience,
        clockTimestamp: Math.floor(now.getTime() / 1000),
      });
    } catch (error) {
      if (error instanceof TokenExpiredError) {
        return { ok: false, error: AuthErrors.expiredToken(error.expiredAt, now) };
      }
      return { ok: false, error: AuthErrors.invalidToken(this.reasonOf(error)) };
    }
    // jsonwebtoken accepts a token without exp; the contract does not.
    if (typeof claims.exp !== 'number') {
      return { ok: false, error: AuthErrors.invalidToken('it has no expiry') };
    }
    // Ours live exactly one hour: anything longer was not issued here.
    if (typeof claims.iat !== 'number' || claims.exp - claims.iat > TOKEN_TTL_SECONDS) {
      return { ok: false, error: AuthErrors.invalidToken('its lifetime is not one hour') };
    }
    const { sub, username, role, jti } = claims;
    if (
      typeof sub !== 'string' ||
      !/^[1-9]\d{0,15}$/.test(sub) ||
      typeof username !== 'string' ||
      typeof jti !== 'string' ||
      !ROLES.includes(role as Role)
    ) {
      return { ok: false, error: AuthErrors.invalidToken('its claims are incomplete') };
    }
    return { ok: true, token: { userId: Number(sub), username, role: role as Role, jti } };
  }

  /** jsonwebtoken's messages name the failed check without revealing anything secret. */
  private reasonOf(error: unknown): string {
    return error instanceof Error ? error.message : 'verification failed';
  }
}
