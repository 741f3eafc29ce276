import { createHash, timingSafeEqual } from 'node:crypto';
import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ApiException } from '../common/errors/api-exception.js';
import { AUTHORIZATION_HEADER, WWW_AUTHENTICATE_HEADER } from '../common/http/header-names.js';
import { observabilityConfig, type ObservabilityConfig } from '../config/observability.config.js';

const CHALLENGE = { [WWW_AUTHENTICATE_HEADER]: 'Bearer realm="metrics"' };

/**
 * GET /metrics exists only with METRICS_ENABLED=true (404 otherwise, as for any unknown
 * path), and with METRICS_TOKEN set it requires `Authorization: Bearer <token>`.
 */
@Injectable()
export class MetricsAccessGuard implements CanActivate {
  constructor(@Inject(observabilityConfig.KEY) private readonly config: ObservabilityConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request>();
    if (!this.config.metricsEnabled) {
      throw new ApiException('NOT_FOUND', `No route for ${request.method} /metrics`);
    }
    const expected = this.config.metricsToken;
    if (!expected) return true;
    const presented = /^Bearer (\S+)$/i.exec(request.get(AUTHORIZATION_HEADER) ?? '')?.[1];
    if (!presented) {
      throw new ApiException(
        'AUTHENTICATION_REQUIRED',
        'GET /metrics requires Authorization: Bearer <METRICS_TOKEN>',
        undefined,
        CHALLENGE,
      );
    }
    if (!sameSecret(presented, expected)) {
      throw new ApiException(
        'INVALID_TOKEN',
        'The metrics token is not valid',
        undefined,
        CHALLENGE,
      );
    }
    return true;
  }
}

/** Compares digests, so the time taken says nothing about the secret or its length. */
function sameSecret(presented: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
