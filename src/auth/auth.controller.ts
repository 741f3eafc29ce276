import { Body, Controller, Header, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../common/decorators/public.decorator.js';
import { CACHE_CONTROL_HEADER } from '../common/http/header-names.js';
import { ApiErrors } from '../openapi/api-errors.decorator.js';
import {
  ApiJsonBody,
  ApiPublicRateLimited,
  noStoreResponseHeaders,
} from '../openapi/api-docs.decorators.js';
import { EmptyResponse } from '../openapi/empty-response.dto.js';
import { AuthService } from './auth.service.js';
import { LoginResponse } from './dto/login-response.dto.js';
import { LoginDto } from './dto/login.dto.js';
import { RefreshTokenDto } from './dto/refresh-token.dto.js';
import { CurrentSessionClient, type SessionClient } from './sessions/session-client.decorator.js';
import { SessionsService } from './sessions/sessions.service.js';

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly authService: AuthService,
    private readonly sessionsService: SessionsService,
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
      'awaiting email verification (userStatus 2) answers 403 EMAIL_NOT_VERIFIED.',
  })
  @ApiJsonBody()
  @ApiPublicRateLimited()
  @ApiErrors({
    401: ['INVALID_CREDENTIALS'],
    403: ['EMAIL_NOT_VERIFIED'],
    503: ['SERVICE_UNAVAILABLE'],
  })
  @ApiOkResponse({
    type: LoginResponse,
    description: 'Logged in',
    headers: noStoreResponseHeaders('token'),
  })
  login(
    @Body() dto: LoginDto,
    @CurrentSessionClient() client: SessionClient,
  ): Promise<LoginResponse> {
    return this.authService.login(dto, client);
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
      'from its login).',
  })
  @ApiJsonBody()
  @ApiPublicRateLimited()
  @ApiErrors({ 401: ['INVALID_REFRESH_TOKEN'], 503: ['SERVICE_UNAVAILABLE'] })
  @ApiOkResponse({
    type: LoginResponse,
    description: 'Refreshed',
    headers: noStoreResponseHeaders('token'),
  })
  refresh(@Body() dto: RefreshTokenDto): Promise<LoginResponse> {
    return this.authService.refresh(dto.refreshToken);
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
      'that belongs to no active session answers the same `{}`.',
  })
  @ApiJsonBody()
  @ApiPublicRateLimited()
  @ApiErrors({ 503: ['SERVICE_UNAVAILABLE'] })
  @ApiOkResponse({ type: EmptyResponse, description: 'Logged out; the body is `{}`' })
  async logout(@Body() dto: RefreshTokenDto): Promise<EmptyResponse> {
    await this.sessionsService.logout(dto.refreshToken);
    return {};
  }
}
