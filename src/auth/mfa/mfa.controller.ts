import {
  Body,
  Controller,
  Delete,
  Get,
  Header,
  HttpCode,
  Inject,
  Param,
  Post,
  Req,
  Res,
} from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal } from '../../common/decorators/current-principal.decorator.js';
import { Public } from '../../common/decorators/public.decorator.js';
import { AnyRole, Roles } from '../../common/decorators/roles.decorator.js';
import { ApiException } from '../../common/errors/api-exception.js';
import { CACHE_CONTROL_HEADER } from '../../common/http/header-names.js';
import { appConfig, type AppConfig } from '../../config/app.config.js';
import { ParseIdPipe } from '../../common/pipes/parse-id.pipe.js';
import type { Principal } from '../../common/types/principal.js';
import { ApiErrors } from '../../openapi/api-errors.decorator.js';
import {
  ApiIdParam,
  ApiJsonBody,
  ApiPublicRateLimited,
  NoBody,
  noStoreResponseHeaders,
} from '../../openapi/api-docs.decorators.js';
import { EmptyResponse } from '../../openapi/empty-response.dto.js';
import { Idempotent } from '../../idempotency/idempotent.decorator.js';
import { userNotFound } from '../../users/users.service.js';
import { AuthService } from '../auth.service.js';
import { BearerOnly } from '../bearer-only.decorator.js';
import { LoginResponse } from '../dto/login-response.dto.js';
import {
  assertOwnOrigin,
  intoRefreshCookie,
  refreshCookieHeader,
} from '../sessions/refresh-cookie.js';
import { CurrentSessionClient, type SessionClient } from '../sessions/session-client.decorator.js';
import { PasskeyOptionsResponse } from '../passkeys/dto/passkey-responses.dto.js';
import { ConfirmTotpDto, MfaProofDto, MfaTokenDto, VerifyMfaDto } from './dto/mfa-proof.dto.js';
import {
  MfaStatusResponse,
  RecoveryCodesResponse,
  TotpEnrolmentResponse,
} from './dto/mfa-responses.dto.js';
import { MfaEnrolment } from './mfa-enrolment.decorator.js';
import { MfaService } from './mfa.service.js';

@ApiTags('auth')
@Controller('auth/mfa')
export class MfaController {
  constructor(
    private readonly mfa: MfaService,
    private readonly auth: AuthService,
    @Inject(appConfig.KEY) private readonly app: AppConfig,
  ) {}

  @Get()
  @BearerOnly()
  @AnyRole()
  @MfaEnrolment()
  @ApiOperation({
    operationId: 'getMfaStatus',
    summary: 'Your second factors',
    description:
      'Bearer token only, or the token of a login’s 403 MFA_ENROLMENT_REQUIRED (the console’s ' +
      'Security page reads it before enrolling). Whether the caller’s TOTP factor is on.',
  })
  @ApiOkResponse({ type: MfaStatusResponse, description: 'The caller’s factors' })
  async status(@CurrentPrincipal() principal: Principal): Promise<MfaStatusResponse> {
    return { totp: (await this.mfa.methodsOf(principal.userId)).includes('totp') };
  }

  @Post('totp')
  @BearerOnly()
  @AnyRole()
  @MfaEnrolment()
  @HttpCode(200)
  @Header(CACHE_CONTROL_HEADER, 'no-store')
  // The secret is never stored in the clear: a replay answers without it.
  @Idempotent({ secretFields: ['secret', 'otpauthUrl'] })
  @NoBody()
  @ApiOperation({
    operationId: 'enrolTotp',
    summary: 'Enrol a TOTP second factor',
    description:
      'Bearer token only, or the token of a login’s 403 MFA_ENROLMENT_REQUIRED. A new secret ' +
      'and its `otpauth://` URL (show it as a QR code), pending until confirmed with a code ' +
      'of it (POST /v1/auth/mfa/totp/confirm); enrolling again replaces a pending one. 409 ' +
      'MFA_ALREADY_ENABLED once confirmed.',
  })
  @ApiErrors({ 409: ['MFA_ALREADY_ENABLED'] })
  @ApiOkResponse({
    type: TotpEnrolmentResponse,
    description: 'Pending until confirmed',
    headers: noStoreResponseHeaders('secret'),
  })
  enrol(@CurrentPrincipal() principal: Principal): Promise<TotpEnrolmentResponse> {
    return this.mfa.enrol(principal.userId);
  }

  @Post('totp/confirm')
  @BearerOnly()
  @AnyRole()
  @MfaEnrolment()
  @HttpCode(200)
  @Header(CACHE_CONTROL_HEADER, 'no-store')
  // Recovery codes are stored hashed only: a replay answers without them.
  @Idempotent({ secretFields: ['recoveryCodes'] })
  @ApiOperation({
    operationId: 'confirmTotp',
    summary: 'Confirm the TOTP factor with a first code',
    description:
      'Bearer token only, or the token of a login’s 403 MFA_ENROLMENT_REQUIRED. Turns the ' +
      'pending factor on (a login then answers 401 MFA_REQUIRED) and answers 10 recovery ' +
      'codes, shown this once. A wrong code is 403 INVALID_MFA_CODE and counts toward the ' +
      'login lock-out; nothing pending is 404 MFA_FACTOR_NOT_FOUND.',
  })
  @ApiJsonBody()
  @ApiErrors({
    403: ['INVALID_MFA_CODE'],
    404: ['MFA_FACTOR_NOT_FOUND'],
    409: ['MFA_ALREADY_ENABLED'],
  })
  @ApiOkResponse({
    type: RecoveryCodesResponse,
    description: 'Enabled',
    headers: noStoreResponseHeaders('recoveryCodes'),
  })
  confirm(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: ConfirmTotpDto,
  ): Promise<RecoveryCodesResponse> {
    return this.mfa.confirm(principal.userId, dto.code);
  }

  @Delete('totp')
  @BearerOnly()
  @AnyRole()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deleteTotp',
    summary: 'Remove your TOTP factor',
    description:
      'Bearer token only, with a current code or a recovery code in the body: a stolen ' +
      'token alone cannot remove a factor. Removes the factor and its recovery codes. A ' +
      'wrong code is 403 INVALID_MFA_CODE and counts toward the login lock-out; no factor ' +
      'is 404 MFA_FACTOR_NOT_FOUND.',
  })
  @ApiJsonBody()
  @ApiErrors({ 403: ['INVALID_MFA_CODE'], 404: ['MFA_FACTOR_NOT_FOUND'] })
  @ApiOkResponse({ type: EmptyResponse, description: 'Removed; the body is `{}`' })
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: MfaProofDto,
  ): Promise<EmptyResponse> {
    await this.mfa.removeOwn(principal.userId, dto);
    return {};
  }

  @Public()
  @Post('passkey-options')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'startMfaPasskey',
    summary: 'Start completing a login with a passkey',
    description:
      'For a login that answered 401 MFA_REQUIRED with `passkey` among its `methods`: options ' +
      'for the browser’s `navigator.credentials.get()`, of the account’s passkeys; send the ' +
      'assertion as `passkey` to POST /v1/auth/mfa/verify. The `mfaToken` is not spent; the ' +
      'challenge serves once, for 5 minutes. No credential needed; rate limited by client ' +
      'address. An unusable `mfaToken` is 401 INVALID_MFA_TOKEN; an account without a ' +
      'passkey, 404 PASSKEY_NOT_FOUND.',
  })
  @ApiJsonBody()
  @ApiPublicRateLimited()
  @ApiErrors({
    401: ['INVALID_MFA_TOKEN'],
    404: ['PASSKEY_NOT_FOUND'],
    503: ['SERVICE_UNAVAILABLE'],
  })
  @ApiOkResponse({ type: PasskeyOptionsResponse, description: 'Request options' })
  async passkeyOptions(@Body() dto: MfaTokenDto): Promise<PasskeyOptionsResponse> {
    return { options: await this.mfa.passkeyOptions(dto.mfaToken) };
  }

  @Public()
  @Post('verify')
  @HttpCode(200)
  @Header(CACHE_CONTROL_HEADER, 'no-store')
  @ApiOperation({
    operationId: 'verifyMfa',
    summary: 'Complete a login with a second factor',
    description:
      'The second step of a login that answered 401 MFA_REQUIRED: its `mfaToken` (5 minutes, ' +
      'single use) with a current code, a recovery code or a passkey’s assertion (options: ' +
      'POST /v1/auth/mfa/passkey-options), for the login’s answer and a new session. No credential needed; rate limited by client address. A wrong code is 403 ' +
      'INVALID_MFA_CODE with `attemptsLeft`, and counts toward the login lock-out; the fifth ' +
      'voids the token. Unknown, expired, used and voided tokens are 401 INVALID_MFA_TOKEN. ' +
      'With `refreshTokenIn: cookie` (the web console) the refresh token is set as an HttpOnly ' +
      'cookie instead of answered, as at login (403 ORIGIN_NOT_ALLOWED without the service’s ' +
      'own Origin).',
  })
  @ApiJsonBody()
  @ApiPublicRateLimited()
  @ApiErrors({
    401: ['INVALID_MFA_TOKEN'],
    403: ['INVALID_MFA_CODE', 'ORIGIN_NOT_ALLOWED'],
    503: ['SERVICE_UNAVAILABLE'],
  })
  @ApiOkResponse({
    type: LoginResponse,
    description: 'Logged in',
    headers: { ...noStoreResponseHeaders('token'), ...refreshCookieHeader('sets') },
  })
  async verify(
    @Body() dto: VerifyMfaDto,
    @CurrentSessionClient() client: SessionClient,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<LoginResponse> {
    if (dto.refreshTokenIn !== 'cookie') return this.auth.verifyMfa(dto, client);
    // Checked before the code is spent: a refused call leaves the mfaToken as it was.
    assertOwnOrigin(request, this.app.publicBaseUrl);
    return intoRefreshCookie(response, await this.auth.verifyMfa(dto, client));
  }
}

/** An admin removing another account's factors: under /users, beside its other routes. */
@ApiTags('users')
@Controller('users')
export class UserMfaController {
  constructor(private readonly mfa: MfaService) {}

  @Delete(':id/mfa')
  @BearerOnly()
  @Roles('admin')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deleteUserMfa',
    summary: 'Remove a user’s second factors',
    description:
      'Admin only, bearer token only; audited (`auth.mfa_removed`). For a person who lost ' +
      'their authenticator and recovery codes: the account signs in with its password again ' +
      '(or must enrol anew, when its role requires a factor). Not for one’s own account, ' +
      'which needs a code (DELETE /v1/auth/mfa/totp): 403 INSUFFICIENT_PERMISSIONS.',
  })
  @ApiIdParam('id', 'User id')
  @ApiErrors({ 404: ['USER_NOT_FOUND', 'MFA_FACTOR_NOT_FOUND'] })
  @ApiOkResponse({ type: EmptyResponse, description: 'Removed; the body is `{}`' })
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('id', new ParseIdPipe(userNotFound)) id: number,
  ): Promise<EmptyResponse> {
    if (id === principal.userId) {
      throw ApiException.forbidden('Remove your own factor with a code: DELETE /v1/auth/mfa/totp');
    }
    await this.mfa.removeOf(id);
    return {};
  }
}
