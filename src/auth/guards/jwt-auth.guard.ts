import { Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { TokenExpiredError } from '@nestjs/jwt';
import { ApiException } from '../../common/errors/api-exception.js';
import type { Principal } from '../../common/types/principal.js';
import { AuthErrors } from '../auth-errors.js';

/** Runs JwtStrategy and turns every way it can fail into the contract's 401. */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  override handleRequest<T = Principal>(error: unknown, principal: T | false, info: unknown): T {
    if (error instanceof ApiException) throw error;
    if (error) throw error as Error;
    if (principal) return principal;
    if (info instanceof TokenExpiredError) {
      throw AuthErrors.expiredToken(info.expiredAt, new Date());
    }
    throw AuthErrors.invalidToken(reasonOf(info));
  }
}

/**
 * passport-jwt reports a header without the Bearer scheme as "No auth token", and
 * jsonwebtoken names the failed check; its "expected: ..." tail would echo the configured
 * issuer or audience, so it is cut.
 */
function reasonOf(info: unknown): string {
  if (!(info instanceof Error)) return 'verification failed';
  if (info.message === 'No auth token') {
    return 'use the Bearer scheme: Authorization: Bearer <token>';
  }
  return info.message.replace(/\. expected:.*$/s, '');
}
