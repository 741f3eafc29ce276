import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { IS_PUBLIC_KEY } from '../../common/decorators/public.decorator.js';
import { ApiException } from '../../common/errors/api-exception.js';
import { AuthErrors } from '../auth-errors.js';
import { BEARER_ONLY_KEY } from '../bearer-only.decorator.js';
import { MfaErrors } from '../mfa/mfa-errors.js';
import { MFA_ENROLMENT_KEY } from '../mfa/mfa-enrolment.decorator.js';
import { RouteMetadata } from '../../common/metadata/route-metadata.js';

/**
 * Secure by default: every route needs a valid credential unless marked @Public(), and a
 * caller that must enrol a second factor first reaches only the routes that enrol one.
 */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  constructor(private readonly reflector: RouteMetadata) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, targets)) return true;
    const request = context.switchToHttp().getRequest<Request>();
    if (request.authFailure) throw request.authFailure;
    if (!request.principal) throw AuthErrors.required();
    if (
      request.principal.kind === 'api-key' &&
      this.reflector.getAllAndOverride<boolean>(BEARER_ONLY_KEY, targets)
    ) {
      throw ApiException.forbidden('API keys are managed with a bearer token only, not an API key');
    }
    if (
      request.principal.mfaEnrolmentOnly &&
      !this.reflector.getAllAndOverride<boolean>(MFA_ENROLMENT_KEY, targets)
    ) {
      throw MfaErrors.enrolmentRequired();
    }
    return true;
  }
}
