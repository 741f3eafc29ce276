import { type ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { TokenExpiredError } from '@nestjs/jwt';
import type { Request } from 'express';
import { ApiException } from '../../common/errors/api-exception.js';
import { API_KEY_HEADER } from '../../common/http/header-names.js';
import type { Principal } from '../../common/types/principal.js';
import { API_KEY_PREFIX_PATTERN, displayPrefixOf } from '../api-key-format.js';
import { AuthErrors } from '../auth-errors.js';

const API_KEY_PREFIX = new RegExp(API_KEY_PREFIX_PATTERN);

/** Runs JwtStrategy and turns every way it can fail into the 401s of docs/identity.md. */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  override handleRequest<T = Principal>(
    error: unknown,
    principal: T | false,
    info: unknown,
    context: ExecutionContext,
  ): T {
    if (error instanceof ApiException) throw error;
    if (error) throw error as Error;
    if (principal) return principal;
    if (info instanceof TokenExpiredError) {
      throw AuthErrors.expiredToken(info.expiredAt, new Date());
    }
    const { authorization } = context.switchToHttp().getRequest<Request>().headers;
    throw AuthErrors.invalidToken(reasonOf(info, authorization));
  }
}

/**
 * passport-jwt reports a header without the Bearer scheme as "No auth token", and
 * jsonwebtoken names the failed check; its "expected: ..." tail would echo the configured
 * issuer or audience, so it is cut. One of our API keys sent as a bearer token would be
 * "jwt malformed", which does not tell the caller where the key goes.
 */
function reasonOf(info: unknown, authorization: string | undefined): string {
  if (!(info instanceof Error)) return 'verification failed';
  if (info.message === 'No auth token') {
    return 'use the Bearer scheme: Authorization: Bearer <token>';
  }
  const bearer = /^bearer\s+(\S+)/i.exec(authorization ?? '')?.[1];
  if (bearer !== undefined && API_KEY_PREFIX.test(displayPrefixOf(bearer))) {
    return `this is an API key; send it in the ${API_KEY_HEADER} header, not in Authorization`;
  }
  return info.message.replace(/\. expected:.*$/s, '');
}
