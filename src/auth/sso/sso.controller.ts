import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../../common/decorators/public.decorator.js';
import {
  CACHE_CONTROL_HEADER,
  LOCATION_HEADER,
  SET_COOKIE_HEADER,
} from '../../common/http/header-names.js';
import { CONSOLE_PATH } from '../../common/http/route-space.js';
import { appConfig, type AppConfig } from '../../config/app.config.js';
import { ApiErrors } from '../../openapi/api-errors.decorator.js';
import { ApiPublicRateLimited } from '../../openapi/api-docs.decorators.js';
import { REFRESH_COOKIE_NAME, setRefreshCookie } from '../sessions/refresh-cookie.js';
import { CurrentSessionClient, type SessionClient } from '../sessions/session-client.decorator.js';
import { SessionsService } from '../sessions/sessions.service.js';
import { SsoConfigResponse } from './dto/sso-config-response.dto.js';
import { SsoErrors } from './sso-errors.js';
import { SSO_CALLBACK_PATH, SSO_COOKIE_NAME, SsoStateCookie } from './sso-state.js';
import { SsoService } from './sso.service.js';

/** Where the console picks the session up: the fragment only tells it to use its cookie. */
export const SSO_LANDING = `/${CONSOLE_PATH}/#sso`;

const noStore = {
  [CACHE_CONTROL_HEADER]: {
    description: 'A redirect of one sign-in: no cache may keep it',
    required: true,
    schema: { type: 'string', enum: ['no-store'] },
  },
};

const location = (description: string) => ({
  [LOCATION_HEADER]: { description, required: true, schema: { type: 'string', maxLength: 4096 } },
});

const cookie = (description: string) => ({
  [SET_COOKIE_HEADER]: {
    description,
    required: false,
    schema: { type: 'string', maxLength: 1024 },
  },
});

@ApiTags('auth')
@Public()
@Controller('auth/sso')
export class SsoController {
  constructor(
    private readonly sso: SsoService,
    private readonly sessions: SessionsService,
    private readonly stateCookie: SsoStateCookie,
    @Inject(appConfig.KEY) private readonly app: AppConfig,
  ) {}

  @Get('config')
  @ApiOperation({
    operationId: 'getSsoConfig',
    summary: 'Single sign-on settings',
    description:
      'Whether single sign-on is configured, and the provider’s name for the console’s ' +
      '“Sign in with …” link. No credential needed; rate limited by client address.',
  })
  @ApiPublicRateLimited()
  @ApiOkResponse({ type: SsoConfigResponse, description: 'The settings' })
  config(): SsoConfigResponse {
    const displayName = this.sso.displayName;
    return displayName === undefined ? { enabled: false } : { enabled: true, displayName };
  }

  @Get()
  @ApiOperation({
    operationId: 'startSso',
    summary: 'Sign in with the OpenID Connect provider',
    description:
      'A browser’s navigation, not an API call: redirects to the provider’s sign-in page ' +
      '(authorization code flow with PKCE, state and nonce), and keeps what the callback ' +
      `checks in the HttpOnly cookie \`${SSO_COOKIE_NAME}\`, for 10 minutes. 404 ` +
      'SSO_NOT_CONFIGURED without OIDC_ISSUER; 503 when the provider cannot be reached. ' +
      'No credential needed; rate limited by client address.',
  })
  @ApiPublicRateLimited()
  @ApiErrors({ 404: ['SSO_NOT_CONFIGURED'], 503: ['SERVICE_UNAVAILABLE'] })
  @ApiResponse({
    status: 302,
    description: 'To the provider’s authorization endpoint',
    headers: {
      ...location('The provider’s authorization endpoint, with the request’s parameters'),
      ...noStore,
      ...cookie(
        `Sets \`${SSO_COOKIE_NAME}\` (HttpOnly; Secure; SameSite=Lax; Path=${SSO_CALLBACK_PATH})`,
      ),
    },
  })
  async start(@Req() request: Request, @Res() response: Response): Promise<void> {
    const { url, state } = await this.sso.begin(this.callbackUri(request));
    this.stateCookie.set(response, state);
    redirect(response, url.href);
  }

  @Get('callback')
  @ApiOperation({
    operationId: 'finishSso',
    summary: 'Return from the OpenID Connect provider',
    description:
      'Where the provider sends the browser back. Checks state (against the cookie set by ' +
      'GET /v1/auth/sso), then the id_token’s signature, issuer, audience, expiry and nonce; ' +
      'any failed check, a refused or spent code, or a missing or expired cookie: 401 ' +
      'SSO_FAILED (`details.reason`). The provider must vouch for the email address ' +
      '(`email_verified`, else 403 SSO_EMAIL_NOT_VERIFIED); with OIDC_ALLOWED_DOMAINS its ' +
      'domain must be one of them (403 SSO_DOMAIN_NOT_ALLOWED). The active account with ' +
      'that address is signed in; without one, a new customer is made, unless ' +
      'REGISTRATION=closed (403 REGISTRATION_CLOSED). The session is an ordinary one: its ' +
      `refresh token is set in the console’s refresh cookie \`${REFRESH_COOKIE_NAME}\` and the ` +
      `browser is sent to the console (${SSO_LANDING}), which gets its bearer token with it. ` +
      'No second factor is asked: the provider is trusted with that. No credential needed; ' +
      'rate limited by client address.',
  })
  @ApiQuery({
    name: 'code',
    required: false,
    description: 'The authorization code, spent once at the provider',
    schema: { type: 'string', maxLength: 2048 },
  })
  @ApiQuery({
    name: 'state',
    required: false,
    description: 'What GET /v1/auth/sso sent; checked against the cookie',
    schema: { type: 'string', maxLength: 2048 },
  })
  @ApiQuery({
    name: 'iss',
    required: false,
    description: 'The provider’s issuer (RFC 9207), checked when sent',
    schema: { type: 'string', maxLength: 2048 },
  })
  @ApiQuery({
    name: 'error',
    required: false,
    description: 'The provider’s refusal (such as `access_denied`): 401 SSO_FAILED',
    schema: { type: 'string', maxLength: 2048 },
  })
  @ApiPublicRateLimited()
  @ApiErrors({
    401: ['SSO_FAILED'],
    403: ['SSO_EMAIL_NOT_VERIFIED', 'SSO_DOMAIN_NOT_ALLOWED', 'REGISTRATION_CLOSED'],
    404: ['SSO_NOT_CONFIGURED'],
    409: ['CONFLICT'],
    503: ['SERVICE_UNAVAILABLE'],
  })
  @ApiResponse({
    status: 302,
    description: 'Signed in: to the console',
    headers: {
      ...location(`The console, \`${SSO_LANDING}\``),
      ...noStore,
      ...cookie(
        `Clears \`${SSO_COOKIE_NAME}\`, and sets the console’s refresh cookie ` +
          `\`${REFRESH_COOKIE_NAME}\` as POST /v1/auth/login does`,
      ),
    },
  })
  async callback(
    @Req() request: Request,
    @Res() response: Response,
    @CurrentSessionClient() client: SessionClient,
  ): Promise<void> {
    const expected = this.stateCookie.read(request);
    // Each cookie serves one callback, whatever its outcome.
    this.stateCookie.clear(response);
    if (this.sso.displayName === undefined) throw SsoErrors.notConfigured();
    if (!expected) throw SsoErrors.failed('no sign-in in progress in this browser');
    const url = new URL(this.callbackUri(request));
    url.search = new URL(request.originalUrl, url).search;
    const issued = await this.sso.finish(url, expected, client);
    setRefreshCookie(response, issued.refreshToken, this.sessions.refreshTtlSeconds);
    redirect(response, SSO_LANDING);
  }

  /** The callback's address, which the provider must list for this client. */
  private callbackUri(request: Request): string {
    const base = this.app.publicBaseUrl ?? `${request.protocol}://${request.get('host') ?? ''}`;
    return `${base}${SSO_CALLBACK_PATH}`;
  }
}

/** A 302 without a body (Express's redirect() writes one), which no cache may keep. */
function redirect(response: Response, to: string): void {
  response
    .status(302)
    .set({ [LOCATION_HEADER]: to, [CACHE_CONTROL_HEADER]: 'no-store' })
    .end();
}
