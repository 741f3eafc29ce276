import { Injectable } from '@nestjs/common';
import { ApiException } from '../common/errors/api-exception.js';
import type { Principal } from '../common/types/principal.js';
import { UserStatus } from '../users/user-status.js';
import { UsersService } from '../users/users.service.js';
import { ApiKeysService } from './api-keys.service.js';
import { AuthErrors } from './auth-errors.js';
import { TokenService } from './token.service.js';

export interface PresentedCredentials {
  /** The raw `Authorization` header, if sent. */
  authorization?: string;
  /** The raw `X-API-Key` header, if sent. */
  apiKey?: string;
}

/** No credential at all; a credential that failed; or who the request acts as. */
export type Identification =
  | { kind: 'anonymous' }
  | { kind: 'failed'; error: ApiException }
  | { kind: 'identified'; principal: Principal };

const BEARER = /^Bearer +(\S+) *$/i;

@Injectable()
export class CredentialsService {
  constructor(
    private readonly tokens: TokenService,
    private readonly apiKeys: ApiKeysService,
    private readonly users: UsersService,
  ) {}

  /**
   * Resolves the request's credentials without throwing. When both headers are sent,
   * each must be valid and the bearer token decides identity.
   */
  async identify(credentials: PresentedCredentials): Promise<Identification> {
    const { authorization, apiKey } = credentials;
    if (authorization === undefined && apiKey === undefined) return { kind: 'anonymous' };

    const fromToken =
      authorization === undefined ? undefined : await this.fromAuthorization(authorization);
    if (fromToken instanceof ApiException) return { kind: 'failed', error: fromToken };

    const fromKey = apiKey === undefined ? undefined : await this.apiKeys.authenticate(apiKey);
    if (fromKey instanceof ApiException) return { kind: 'failed', error: fromKey };

    return { kind: 'identified', principal: (fromToken ?? fromKey)! };
  }

  private async fromAuthorization(header: string): Promise<Principal | ApiException> {
    const token = BEARER.exec(header)?.[1];
    if (!token) {
      return AuthErrors.invalidToken('use the Bearer scheme: Authorization: Bearer <token>');
    }
    const check = this.tokens.verify(token);
    if (!check.ok) return check.error;
    const state = await this.users.accessStateOf(check.token.userId);
    if (!state) return AuthErrors.invalidToken('its account no longer exists');
    if (state.userStatus !== UserStatus.Active) {
      return AuthErrors.invalidToken('its account is not active');
    }
    // The current role, not the one at login: a demotion takes effect within the cache's 30 s.
    return { kind: 'user', userId: check.token.userId, role: state.role };
  }
}
