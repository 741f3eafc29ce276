import { Injectable } from '@nestjs/common';
import { LoginLockoutService } from '../rate-limit/login-lockout.service.js';
import { PasswordService } from '../users/password.service.js';
import { UserStatus } from '../users/user-status.js';
import { UsersService } from '../users/users.service.js';
import { AuthErrors } from './auth-errors.js';
import { LoginResponse } from './dto/login-response.dto.js';
import { LoginDto } from './dto/login.dto.js';
import { TOKEN_TTL_SECONDS } from './strategies/jwt.strategy.js';
import { TokenService } from './token.service.js';

@Injectable()
export class AuthService {
  constructor(
    private readonly users: UsersService,
    private readonly passwords: PasswordService,
    private readonly tokens: TokenService,
    private readonly lockout: LoginLockoutService,
  ) {}

  /**
   * Unknown user, wrong password, inactive account and locked username all answer
   * INVALID_CREDENTIALS after one argon2 verification each, so that neither body nor
   * timing tells them apart.
   */
  async login(dto: LoginDto): Promise<LoginResponse> {
    const [locked, user] = await Promise.all([
      this.lockout.isLocked(dto.username),
      this.users.findByUsername(dto.username),
    ]);
    const valid = await this.passwords.verifyPassword(user?.passwordHash, dto.password);
    if (locked || !user || !valid || user.userStatus !== UserStatus.Active) {
      await this.lockout.recordFailure(dto.username);
      throw AuthErrors.invalidCredentials();
    }
    return {
      token: this.tokens.issue(user),
      user: { id: user.id, username: user.username, email: user.email },
      expiresIn: TOKEN_TTL_SECONDS,
    };
  }
}
