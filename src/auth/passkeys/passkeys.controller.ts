import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../../common/decorators/current-principal.decorator.js';
import { AnyRole } from '../../common/decorators/roles.decorator.js';
import { ParseIdPipe } from '../../common/pipes/parse-id.pipe.js';
import type { Principal } from '../../common/types/principal.js';
import { Idempotent } from '../../idempotency/idempotent.decorator.js';
import { ApiErrors } from '../../openapi/api-errors.decorator.js';
import { ApiIdParam, ApiJsonBody, NoBody } from '../../openapi/api-docs.decorators.js';
import { EmptyResponse } from '../../openapi/empty-response.dto.js';
import { BearerOnly } from '../bearer-only.decorator.js';
import { MfaProofDto } from '../mfa/dto/mfa-proof.dto.js';
import { MfaEnrolment } from '../mfa/mfa-enrolment.decorator.js';
import { MfaService } from '../mfa/mfa.service.js';
import { AddPasskeyDto, PasskeyNameDto } from './dto/passkey.dto.js';
import {
  PasskeyListResponse,
  PasskeyOptionsResponse,
  PasskeyResponse,
} from './dto/passkey-responses.dto.js';
import { PasskeyErrors } from './passkey-errors.js';
import { PasskeysService } from './passkeys.service.js';

const passkeyNotFound = () => PasskeyErrors.notFound();

/** One's own passkeys (docs/identity.md, Passkeys); signing in with one is under /auth. */
@ApiTags('auth')
@Controller('auth/passkeys')
@BearerOnly()
@AnyRole()
export class PasskeysController {
  constructor(
    private readonly passkeys: PasskeysService,
    private readonly mfa: MfaService,
  ) {}

  @Post('registration')
  @MfaEnrolment()
  @HttpCode(200)
  @Idempotent()
  @NoBody()
  @ApiOperation({
    operationId: 'startPasskeyRegistration',
    summary: 'Start registering a passkey',
    description:
      'Bearer token only, or the token of a login’s 403 MFA_ENROLMENT_REQUIRED (a passkey ' +
      'is a second factor). Options for the browser’s `navigator.credentials.create()` (a ' +
      'discoverable credential, excluding the account’s passkeys); their challenge serves ' +
      'once, for 5 minutes. Send the result to POST /v1/auth/passkeys.',
  })
  @ApiOkResponse({ type: PasskeyOptionsResponse, description: 'Creation options' })
  async registrationOptions(
    @CurrentPrincipal() principal: Principal,
  ): Promise<PasskeyOptionsResponse> {
    return { options: await this.passkeys.registrationOptions(principal.userId) };
  }

  @Post()
  @MfaEnrolment()
  @Idempotent()
  @ApiOperation({
    operationId: 'addPasskey',
    summary: 'Register a passkey',
    description:
      'Bearer token only, or the token of a login’s 403 MFA_ENROLMENT_REQUIRED. The ' +
      'credential made with the options of POST /v1/auth/passkeys/registration; audited ' +
      '(`auth.passkey_added`). From now on a login with the password answers 401 ' +
      'MFA_REQUIRED, and the passkey signs in alone (POST /v1/auth/passkeys/login). Any ' +
      'failed check (challenge unknown, used or expired; origin; relying party; signature; ' +
      'the 20 passkeys an account may have) is 400 PASSKEY_REGISTRATION_FAILED with ' +
      '`details.reason`; a credential registered already is 409 PASSKEY_ALREADY_REGISTERED.',
  })
  @ApiJsonBody()
  @ApiErrors({ 400: ['PASSKEY_REGISTRATION_FAILED'], 409: ['PASSKEY_ALREADY_REGISTERED'] })
  @ApiCreatedResponse({ type: PasskeyResponse, description: 'Registered' })
  add(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: AddPasskeyDto,
  ): Promise<PasskeyResponse> {
    return this.mfa.addPasskey(principal.userId, dto.name, dto.credential);
  }

  @Get()
  @MfaEnrolment()
  @ApiOperation({
    operationId: 'listPasskeys',
    summary: 'List your passkeys',
    description:
      'Bearer token only, or the token of a login’s 403 MFA_ENROLMENT_REQUIRED (the console’s ' +
      'Security page lists them while enrolling). The caller’s passkeys, oldest first, at most 20.',
  })
  @ApiOkResponse({ type: PasskeyListResponse, description: 'The caller’s passkeys' })
  async list(@CurrentPrincipal() principal: Principal): Promise<PasskeyListResponse> {
    return { passkeys: await this.passkeys.list(principal.userId) };
  }

  @Patch(':id')
  @ApiOperation({
    operationId: 'renamePasskey',
    summary: 'Rename a passkey',
    description: 'Bearer token only. Someone else’s passkey is 404, as one that does not exist.',
  })
  @ApiIdParam('id', 'Passkey id')
  @ApiJsonBody()
  @ApiErrors({ 404: ['PASSKEY_NOT_FOUND'] })
  @ApiOkResponse({ type: PasskeyResponse, description: 'Renamed' })
  rename(
    @CurrentPrincipal() principal: Principal,
    @Param('id', new ParseIdPipe(passkeyNotFound)) id: number,
    @Body() dto: PasskeyNameDto,
  ): Promise<PasskeyResponse> {
    return this.passkeys.rename(principal.userId, id, dto.name);
  }

  @Post('proof-options')
  @HttpCode(200)
  @Idempotent()
  @NoBody()
  @ApiOperation({
    operationId: 'startPasskeyProof',
    summary: 'Start proving a factor with a passkey',
    description:
      'Bearer token only. Options for the browser’s `navigator.credentials.get()`, of the ' +
      'caller’s passkeys, whose assertion is the `passkey` proof of DELETE ' +
      '/v1/auth/passkeys/{id} and DELETE /v1/auth/mfa/totp; the challenge serves once, for ' +
      '5 minutes. No passkey: 404 PASSKEY_NOT_FOUND.',
  })
  @ApiErrors({ 404: ['PASSKEY_NOT_FOUND'] })
  @ApiOkResponse({ type: PasskeyOptionsResponse, description: 'Request options' })
  async proofOptions(@CurrentPrincipal() principal: Principal): Promise<PasskeyOptionsResponse> {
    return { options: await this.passkeys.authenticationOptions('proof', principal.userId) };
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deletePasskey',
    summary: 'Remove a passkey',
    description:
      'Bearer token only, with a proof in the body, as for the TOTP factor: a current code, ' +
      'a recovery code, or `passkey`, an assertion of any of the caller’s passkeys (options: ' +
      'POST /v1/auth/passkeys/proof-options); a stolen token alone cannot remove a factor. ' +
      'Audited (`auth.passkey_removed`). A refused proof is 403 INVALID_MFA_CODE and counts ' +
      'toward the login lock-out; someone else’s passkey is 404, as one that does not exist.',
  })
  @ApiIdParam('id', 'Passkey id')
  @ApiJsonBody()
  @ApiErrors({ 403: ['INVALID_MFA_CODE'], 404: ['PASSKEY_NOT_FOUND'] })
  @ApiOkResponse({ type: EmptyResponse, description: 'Removed; the body is `{}`' })
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('id', new ParseIdPipe(passkeyNotFound)) id: number,
    @Body() dto: MfaProofDto,
  ): Promise<EmptyResponse> {
    await this.mfa.removeOwnPasskey(principal.userId, id, dto);
    return {};
  }
}
