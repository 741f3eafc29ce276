import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerRequest,
  type ThrottlerStorage,
} from '@nestjs/throttler';
// Not re-exported by the package's index: the metadata key @SkipThrottle() writes.
import { THROTTLER_SKIP } from '@nestjs/throttler/dist/throttler.constants.js';
import type { Request, Response } from 'express';
import { ApiException } from '../common/errors/api-exception.js';
import { isUnderApiPrefix } from '../common/http/route-space.js';
import { rateLimitConfig, type RateLimitConfig } from '../config/rate-limit.config.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { callerOf, counterKey, ownerTrackerOf, type WindowName } from './caller.js';
import { setRateLimitHeaders, windowState, type WindowState } from './window-state.js';

/**
 * @nestjs/throttler's guard, extended for what the contract adds:
 * - one budget per caller across all routes (the key is window + caller, not the route),
 *   the caller being the API key, else the user, else the client address;
 * - both windows counted on every request, then the request refused if either is spent
 *   (the base guard stops counting at the first spent window);
 * - an API key's request spends its owner's user budget too;
 * - the headers of the tightest window only, and the contract's 429 body;
 * - `@SkipThrottle()` skips every window (the base guard reads it for `default` only),
 *   except for a request whose credential was refused: that is counted by address.
 * It runs after the credential is identified and before it is enforced, so that a
 * missing or invalid credential is limited by client address.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  private readonly spent = new WeakMap<Request, WindowState[]>();

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly metricsService: MetricsService,
    @Inject(rateLimitConfig.KEY) private readonly config: RateLimitConfig,
  ) {
    super(options, storage, reflector);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    await super.canActivate(context);
    const request = context.switchToHttp().getRequest<Request>();
    const windows = this.spent.get(request);
    if (!windows) return true;
    this.spent.delete(request);
    setRateLimitHeaders(context.switchToHttp().getResponse<Response>(), windows);
    const refused = windows.filter(
      (w): w is WindowState & { retryAfter: number } => w.retryAfter !== undefined,
    );
    if (refused.length === 0) return true;
    const worst = refused.reduce((a, b) => (b.retryAfter > a.retryAfter ? b : a));
    this.metricsService.countRateLimitRefusal(callerOf(request).tier, worst.window);
    throw ApiException.retryLater(
      'RATE_LIMIT_EXCEEDED',
      `Rate limit of ${worst.limit} requests per ${worst.window} exceeded; retry in ${worst.retryAfter} s`,
      worst.retryAfter,
      { limit: worst.limit, window: worst.window, retryAfter: worst.retryAfter },
    );
  }

  /** Counts one window and records its state; the decision waits for every window. */
  protected override async handleRequest({
    context,
    limit,
    ttl,
    throttler,
    blockDuration,
    getTracker,
    generateKey,
  }: ThrottlerRequest): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const name = throttler.name as WindowName;
    const counted = [{ tracker: await getTracker(request, context), limit }];
    const owner = ownerTrackerOf(request);
    if (owner) counted.push({ tracker: owner, limit: this.config.tiers.user[name] });
    const states = await Promise.all(
      counted.map(async (counter) => {
        const key = generateKey(context, counter.tracker, name);
        const hits = await this.storageService.increment(
          key,
          ttl,
          counter.limit,
          blockDuration,
          name,
        );
        return windowState(name, counter.limit, hits.totalHits, hits.timeToExpire);
      }),
    );
    const windows = this.spent.get(request) ?? [];
    windows.push(...states);
    this.spent.set(request, windows);
    return true;
  }

  protected override shouldSkip(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    // Decided by the route that matched, never by the request's spelling of the path.
    // Operational endpoints outside the API prefix (health, docs, media) are not limited.
    const route = (request.route as { path?: string } | undefined)?.path ?? '';
    if (!isUnderApiPrefix(route)) return Promise.resolve(true);
    // A refused credential spends the address's budget even where requests are not counted.
    if (request.authFailure) return Promise.resolve(false);
    const skip = this.reflector.getAllAndOverride<boolean | undefined>(`${THROTTLER_SKIP}default`, [
      context.getHandler(),
      context.getClass(),
    ]);
    return Promise.resolve(skip === true);
  }

  protected override getTracker(request: Request): Promise<string> {
    return Promise.resolve(callerOf(request).tracker);
  }

  protected override generateKey(
    _context: ExecutionContext,
    tracker: string,
    window: string,
  ): string {
    return counterKey(window as WindowName, tracker);
  }
}
