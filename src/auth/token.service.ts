import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { randomUUID } from 'node:crypto';
import type { Role } from '../common/types/principal.js';
import { authConfig, TOKEN_TTL_SECONDS, type AuthConfig } from '../config/auth.config.js';
import { JWT_ALGORITHM } from './strategies/jwt.strategy.js';

export interface TokenSubject {
  id: number;
  username: string;
  role: Role;
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
        algorithm: JWT_ALGORITHM,
        subject: String(user.id),
        jwtid: randomUUID(),
        expiresIn: TOKEN_TTL_SECONDS,
        issuer: this.cfg.jwtIssuer,
        audience: this.cfg.jwtAudience,
      },
    );
  }
}
