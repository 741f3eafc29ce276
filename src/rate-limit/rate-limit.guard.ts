import { CanActivate, ExecutionContext, HttpStatus, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { API_PREFIX } from '../app.setup.js';
import { SKIP_RATE_LIMIT_KEY } from '../common/decorators/skip-rate-limit.decorator.js';
import { ApiException } from '../common/errors/api-exception.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { RateLimitService } from './rate-limit.service.js';
import { setRateLimitHeaders } from './window-state.js';

/**
 * Spends the identified caller's budget in both windows on every request under the API
 * prefix, sets the headers of the tightest window, and refuses with 429 when any window
 * is exhausted. Runs after the credential is identified, before it is enforced, so that
 * a missing or invalid credential is limited by client address.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly rateLimitService: RateLimitService,
    private readonly reflector: Reflector,
    private readonly metricsService: MetricsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    // Operational endpoints outside the API prefix (health, docs, media) are not limited.
    if (!request.path.startsWith(`/${API_PREFIX}/`)) return true;
    const skip = this.reflector.getAllAndOverride<boolean | undefined>(SKIP_RATE_LIMIT_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (skip) return true;

    const { tier, windows } = await this.rateLimitService.consume(request);
    setRateLimitHeaders(context.switchToHttp().getResponse<Response>(), windows);
    const refused = windows.filter((w) => w.retryAfter !== undefined);
    if (refused.length === 0) return true;
    const worst = refused.reduce((a, b) => ((b.retryAfter ?? 0) > (a.retryAfter ?? 0) ? b : a));
    this.metricsService.countRateLimitRefusal(tier, worst.window);
    throw new ApiException(
      HttpStatus.TOO_MANY_REQUESTS,
      'RATE_LIMIT_EXCEEDED',
      `Rate limit of ${worst.limit} requests per ${worst.window} exceeded; retry in ${worst.retryAfter} s`,
      { limit: worst.limit, window: worst.window, retryAfter: worst.retryAfter },
      { 'Retry-After': String(worst.retryAfter) },
    );
  }
}
