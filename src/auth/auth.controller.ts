import { Body, Controller, Header, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../common/decorators/public.decorator.js';
import { ApiException } from '../common/errors/api-exception.js';
import { CACHE_CONTROL_HEADER } from '../common/http/header-names.js';
import { appConfig, type AppConfig } from '../config/app.config.js';
import { ApiErrors } from '../openapi/api-errors.decorator.js';
import {
  ApiJsonBody,
  ApiPublicRateLimited,
  NoBody,
  noStoreResponseHeaders,
} from '../openapi/api-docs.decorators.js';
import { EmptyResponse } from '../openapi/empty-response.dto.js';
import { AuthService } from './auth.service.js';
import { LoginResponse } from './dto/login-response.dto.js';
import { LoginDto } from './dto/login.dto.js';
import { RefreshTokenDto } from './dto/refresh-token.dto.js';
import { PasskeyLoginDto } from './passkeys/dto/passkey.dto.js';
import { PasskeyOptionsResponse } from './passkeys/dto/passkey-responses.dto.js';
import { PasskeysService } from './passkeys/passkeys.service.js';
import {
  assertOwnOrigin,
  clearRefreshCookie,
  intoRefreshCookie,
  refreshCookieHeader,
  refreshCookieOf,
} from './sessions/refresh-cookie.js';
import { CurrentSessionClient, type SessionClient } from './sessions/session-client.decorator.js';
import { SessionsService } from './sessions/sessions.service.js';

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly authService: AuthService,
    private readonly sessionsService: SessionsService,
    private readonly passkeys: PasskeysService,
    @Inject(appConfig.KEY) private readonly app: AppConfig,
  ) {}

  @Public()
  @Post('login')
  @HttpCode(200)
  @Header(CACHE_CONTROL_HEADER, 'no-store')
  @ApiOperation({
    operationId: 'login',
    summary: 'Log in',
    description:
      'Exchanges a username and password for a bearer token valid for one hour, and starts a ' +
      'session whose refresh token gets the next one (POST /v1/auth/refresh). No credential ' +
      'needed; rate limited by client address. Unknown user, wrong password and inactive ' +
      'account all answer 401 INVALID_CREDENTIALS; the right password of an account ' +
      'awaiting email verification (userStatus 2) answers 403 EMAIL_NOT_VERIFIED. The right ' +
      'password of an account with a second factor answers 401 MFA_REQUIRED with an ' +
      '`mfaToken` for POST /v1/auth/mfa/verify; of one whose role requires a factor it lacks ' +
      '(MFA_REQUIRED_ROLES), 403 MFA_ENROLMENT_REQUIRED with an `enrolmentToken` that opens ' +
      'only POST /v1/auth/mfa/totp and /confirm. With ' +
      '`refreshTokenIn: cookie` (the web console) the refresh token is set as an HttpOnly ' +
      'cookie instead of answered, and the request must carry the service’s own Origin ' +
      '(403 ORIGIN_NOT_ALLOWED).',
  })
  @ApiJsonBody()
  @ApiPublicRateLimited()
  @ApiErrors({
    401: ['INVALID_CREDENTIALS', 'MFA_REQUIRED'],
    403: ['EMAIL_NOT_VERIFIED', 'MFA_ENROLMENT_REQUIRED', 'ORIGIN_NOT_ALLOWED'],
    503: ['SERVICE_UNAVAILABLE'],
  })
  @ApiOkResponse({
    type: LoginResponse,
    description: 'Logged in',
    headers: { ...noStoreResponseHeaders('token'), ...refreshCookieHeader('sets') },
  })
  async login(
    @Body() dto: LoginDto,
    @CurrentSessionClient() client: SessionClient,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<LoginResponse> {
    if (dto.refreshTokenIn !== 'cookie') return this.authService.login(dto, client);
    assertOwnOrigin(request, this.app.publicBaseUrl);
    return intoRefreshCookie(response, await this.authService.login(dto, client));
  }

  @Public()
  @Post('passkeys/login-options')
  @HttpCode(200)
  @NoBody()
  @ApiOperation({
    operationId: 'startPasskeyLogin',
    summary: 'Start signing in with a passkey',
    description:
      'Options for the browser’s `navigator.credentials.get()`: any discoverable passkey of ' +
      'this service, with the person verified by the authenticator; the challenge serves ' +
      'once, for 5 minutes. Send the result to POST /v1/auth/passkeys/login. No credential ' +
      'needed; rate limited by client address.',
  })
  @ApiPublicRateLimited()
  @ApiErrors({ 503: ['SERVICE_UNAVAILABLE'] })
  @ApiOkResponse({ type: PasskeyOptionsResponse, description: 'Request options' })
  async passkeyLoginOptions(): Promise<PasskeyOptionsResponse> {
    return { options: await this.passkeys.authenticationOptions('login', null) };
  }

  @Public()
  @Post('passkeys/login')
  @HttpCode(200)
  @Header(CACHE_CONTROL_HEADER, 'no-store')
  @ApiOperation({
    operationId: 'loginWithPasskey',
    summary: 'Sign in with a passkey',
    description:
      'A sign-in without a password: the assertion made with the options of POST ' +
      '/v1/auth/passkeys/login-options, for the login’s answer and a new session, as POST ' +
      '/v1/auth/login answers (`refreshTokenIn: cookie` included). The passkey counts as ' +
      'both factors. No credential needed; rate limited by client address. Every refusal ' +
      '(unknown credential, challenge used or expired, signature, origin, a counter that did ' +
      'not rise, an account that is locked out or not active) is 401 INVALID_PASSKEY; one of ' +
      'a known passkey is audited (`auth.mfa_failed`) and counts toward its account’s login ' +
      'lock-out.',
  })
  @ApiJsonBody()
  @ApiPublicRateLimited()
  @ApiErrors({
    401: ['INVALID_PASSKEY'],
    403: ['ORIGIN_NOT_ALLOWED'],
    503: ['SERVICE_UNAVAILABLE'],
  })
  @ApiOkResponse({
    type: LoginResponse,
    description: 'Logged in',
    headers: { ...noStoreResponseHeaders('token'), ...refreshCookieHeader('sets') },
  })
  async loginWithPasskey(
    @Body() dto: PasskeyLoginDto,
    @CurrentSessionClient() client: SessionClient,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<LoginResponse> {
    if (dto.refreshTokenIn !== 'cookie') return this.authService.loginWithPasskey(dto, client);
    assertOwnOrigin(request, this.app.publicBaseUrl);
    return intoRefreshCookie(response, await this.authService.loginWithPasskey(dto, client));
  }

  @Public()
  @Post('refresh')
  @HttpCode(200)
  @Header(CACHE_CONTROL_HEADER, 'no-store')
  @ApiOperation({
    operationId: 'refreshToken',
    summary: 'Refresh a bearer token',
    description:
      'Spends a refresh token for a new bearer token and a new refresh token of the same ' +
      'session, whose expiry is renewed. No credential needed; rate limited by client ' +
      'address. Unknown, expired, revoked and spent tokens all answer 401 ' +
      'INVALID_REFRESH_TOKEN; a spent one also revokes its session (every token descended ' +
      'from its login). Without `refreshToken` in the body, the web console’s refresh cookie ' +
      'is spent: the request must carry the service’s own Origin (403 ORIGIN_NOT_ALLOWED), ' +
      'the new refresh token replaces the cookie, and a refused one clears it.',
  })
  @ApiJsonBody()
  @ApiPublicRateLimited()
  @ApiErrors({
    401: ['INVALID_REFRESH_TOKEN'],
    403: ['ORIGIN_NOT_ALLOWED'],
    503: ['SERVICE_UNAVAILABLE'],
  })
  @ApiOkResponse({
    type: LoginResponse,
    description: 'Refreshed',
    headers: { ...noStoreResponseHeaders('token'), ...refreshCookieHeader('replaces') },
  })
  async refresh(
    @Body() dto: RefreshTokenDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<LoginResponse> {
    if (dto.refreshToken !== undefined) return this.authService.refresh(dto.refreshToken);
    const cookie = this.ownCookie(request);
    try {
      return intoRefreshCookie(response, await this.authService.refresh(cookie));
    } catch (error) {
      if (error instanceof ApiException && error.code === 'INVALID_REFRESH_TOKEN') {
        clearRefreshCookie(response);
      }
      throw error;
    }
  }

  @Public()
  @Post('logout')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'logout',
    summary: 'Log out',
    description:
      'Revokes the session of a refresh token: its refresh token stops at once, its bearer ' +
      'tokens within 60 s. No credential needed; rate limited by client address. A token ' +
      'that belongs to no active session answers the same `{}`. Without `refreshToken` in ' +
      'the body, the web console’s refresh cookie is read (the request must carry the ' +
      'service’s own Origin, 403 ORIGIN_NOT_ALLOWED) and cleared.',
  })
  @ApiJsonBody()
  @ApiPublicRateLimited()
  @ApiErrors({ 403: ['ORIGIN_NOT_ALLOWED'], 503: ['SERVICE_UNAVAILABLE'] })
  @ApiOkResponse({
    type: EmptyResponse,
    description: 'Logged out; the body is `{}`',
    headers: refreshCookieHeader('clears'),
  })
  async logout(
    @Body() dto: RefreshTokenDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<EmptyResponse> {
    if (dto.refreshToken !== undefined) {
      await this.sessionsService.logout(dto.refreshToken);
      return {};
    }
    await this.sessionsService.logout(this.ownCookie(request));
    clearRefreshCookie(response);
    return {};
  }

  /**
   * The refresh cookie of a request without `refreshToken` in its body, sent by the service's
   * own pages; with no cookie either, the body's field was required.
   */
  private ownCookie(request: Request): string {
    const cookie = refreshCookieOf(request);
    if (cookie === undefined) {
      throw ApiException.validation([
        {
          field: 'refreshToken',
          message: 'refreshToken is required (or the web console’s refresh cookie)',
        },
      ]);
    }
    assertOwnOrigin(request, this.app.publicBaseUrl);
    return cookie;
  }
}
