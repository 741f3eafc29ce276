import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '../../common/decorators/public.decorator.js';
import { requestOriginOf } from '../../common/http/request-origin.js';
import { ApiErrors } from '../../openapi/api-errors.decorator.js';
import { ApiJsonBody, ApiPublicRateLimited } from '../../openapi/api-docs.decorators.js';
import { addressTracker } from '../../rate-limit/caller.js';
import { AccountMessages, AccountsService, type Asker } from './accounts.service.js';
import {
  AccountTokenDto,
  EmailDto,
  MessageResponse,
  ResetPasswordDto,
} from './dto/account-token.dto.js';
import { RegisterDto } from './dto/register.dto.js';

const NO_ENUMERATION =
  'The answer is the same whether or not the address belongs to an account, and comes ' +
  'before any mail. At most 3 mails an hour go to one address for one client address, ' +
  'under an overall cap per address; beyond them, the same answer and no mail, except a ' +
  'reset, which waits for room under the cap (at most 15 minutes).';
const PUBLIC = ' No credential needed; rate limited by client address.';

const askerOf = (req: Request): Asker => ({
  requester: addressTracker(req),
  origin: requestOriginOf(req),
});

/** The mailed-token flows (docs/identity.md, "Mailed tokens and account flows"). */
@ApiTags('auth')
@Controller('auth')
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Public()
  @Post('register')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'register',
    summary: 'Sign up',
    description:
      'Creates a customer account with userStatus 2 (pending email verification) and mails ' +
      'a link to verify the address (valid 24 h). A taken username is 409 CONFLICT. An email ' +
      'another account holds answers the same 202 and creates the account alike, which can ' +
      'never be verified: the address’s owner gets a mail saying so, with no link. ' +
      NO_ENUMERATION +
      ' With REGISTRATION=closed: 403 REGISTRATION_CLOSED.' +
      PUBLIC,
  })
  @ApiJsonBody()
  @ApiPublicRateLimited()
  @ApiErrors({ 403: ['REGISTRATION_CLOSED'], 409: ['CONFLICT'], 503: ['SERVICE_UNAVAILABLE'] })
  @ApiAcceptedResponse({ type: MessageResponse, description: 'Accepted; see your mailbox' })
  async register(@Body() dto: RegisterDto, @Req() req: Request): Promise<MessageResponse> {
    await this.accounts.register(dto, askerOf(req));
    return { message: AccountMessages.registered };
  }

  @Public()
  @Post('verify-email')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'verifyEmail',
    summary: 'Verify an email address',
    description:
      'Uses the token of a verification link (userStatus 2 becomes 0) or of an email ' +
      'change’s link (the new address replaces the old one); 409 CONFLICT if another account ' +
      'has verified the address since. Malformed, unknown, used, expired and other links’ tokens: 400 ' +
      'INVALID_TOKEN_VALUE.' +
      PUBLIC,
  })
  @ApiJsonBody()
  @ApiPublicRateLimited()
  @ApiErrors({ 400: ['INVALID_TOKEN_VALUE'], 409: ['CONFLICT'], 503: ['SERVICE_UNAVAILABLE'] })
  @ApiOkResponse({ type: MessageResponse, description: 'Verified' })
  async verifyEmail(@Body() dto: AccountTokenDto): Promise<MessageResponse> {
    await this.accounts.verifyEmail(dto.token);
    return { message: AccountMessages.verified };
  }

  @Public()
  @Post('resend-verification')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'resendVerification',
    summary: 'Send the verification link again',
    description:
      'Mails a new verification link if an account with this address awaits verification. ' +
      NO_ENUMERATION +
      PUBLIC,
  })
  @ApiJsonBody()
  @ApiPublicRateLimited()
  @ApiErrors({ 503: ['SERVICE_UNAVAILABLE'] })
  @ApiAcceptedResponse({ type: MessageResponse, description: 'Accepted, whatever the address' })
  async resendVerification(@Body() dto: EmailDto, @Req() req: Request): Promise<MessageResponse> {
    await this.accounts.resendVerification(dto.email, askerOf(req));
    return { message: AccountMessages.resent };
  }

  @Public()
  @Post('forgot-password')
  @HttpCode(202)
  @ApiOperation({
    operationId: 'forgotPassword',
    summary: 'Ask for a password-reset link',
    description:
      'Mails a link to reset the password (valid 1 h) if an account (not disabled) has this ' +
      'address. ' +
      NO_ENUMERATION +
      PUBLIC,
  })
  @ApiJsonBody()
  @ApiPublicRateLimited()
  @ApiErrors({ 503: ['SERVICE_UNAVAILABLE'] })
  @ApiAcceptedResponse({ type: MessageResponse, description: 'Accepted, whatever the address' })
  async forgotPassword(@Body() dto: EmailDto, @Req() req: Request): Promise<MessageResponse> {
    await this.accounts.forgotPassword(dto.email, askerOf(req));
    return { message: AccountMessages.forgotten };
  }

  @Public()
  @Post('reset-password')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'resetPassword',
    summary: 'Set a password with a mailed link',
    description:
      'Uses the token of a password-reset link or of an invitation: sets the password, ' +
      'verifies a pending address (the account becomes active), and ends every session, ' +
      'every bearer token issued before it and the account’s API keys (409 CONFLICT if ' +
      'another account verified the address meanwhile). Malformed, unknown, ' +
      'used, expired and other links’ tokens: 400 INVALID_TOKEN_VALUE.' +
      PUBLIC,
  })
  @ApiJsonBody()
  @ApiPublicRateLimited()
  @ApiErrors({ 400: ['INVALID_TOKEN_VALUE'], 409: ['CONFLICT'], 503: ['SERVICE_UNAVAILABLE'] })
  @ApiOkResponse({ type: MessageResponse, description: 'Password set' })
  async resetPassword(@Body() dto: ResetPasswordDto): Promise<MessageResponse> {
    await this.accounts.resetPassword(dto.token, dto.password);
    return { message: AccountMessages.reset };
  }
}
