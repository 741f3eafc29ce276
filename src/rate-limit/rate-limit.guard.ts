import { ExecutionContext, Injectable } from '@nestjs/common';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerRequest,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { isUnderApiPrefix } from '../common/http/route-space.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { callerOf, counterKey, isUncountedRoute, type WindowName } from './caller.js';
import { RateLimitService, type BudgetCounter } from './rate-limit.service.js';
import {
  isSpent,
  rateLimitExceeded,
  setRateLimitHeaders,
  windowState,
  type LimitSetting,
  type WindowState,
} from './window-state.js';
import { RouteMetadata } from '../common/metadata/route-metadata.js';

/**
 * @nestjs/throttler's guard, extended for what docs/rate-limits.md adds:
 * - one budget per caller across all routes (the key is window + caller, not the route),
 *   the caller being the API key, else the user, else the client address; each budget is
 *   spent by its own caller alone (a key's requests never spend its owner's budget);
 * - both windows counted on every request, then the request refused if either is spent
 *   (the base guard stops counting at the first spent window);
 * - a refused credential also spends its address's budget of refused credentials, which
 *   ResolveCredentialsGuard checks before looking any credential up (and answers 429 past it);
 * - on a `@SkipThrottle()` route (GET /rate-limit) a valid credential spends only its
 *   address's budget of such reads; a missing or refused one is counted as everywhere;
 * - the headers of the tightest window only, and the 429 body of docs/rate-limits.md.
 * It runs after the credential is identified and before it is enforced, so that a
 * missing or invalid credential is limited by client address.
 */
type CountedWindow = WindowState & { setting: LimitSetting };

@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  private readonly spent = new WeakMap<Request, CountedWindow[]>();

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: RouteMetadata,
    private readonly metricsService: MetricsService,
    private readonly rateLimits: RateLimitService,
  ) {
    super(options, storage, reflector);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    if (request.rateLimitRefusal) {
      this.metricsService.countRateLimitRefusal('anonymous', 'minute');
      throw request.rateLimitRefusal;
    }
    await super.canActivate(context);
    const windows = this.spent.get(request);
    if (!windows) return true;
    this.spent.delete(request);
    setRateLimitHeaders(context.switchToHttp().getResponse<Response>(), windows);
    const refused = windows.filter(isSpent);
    if (refused.length === 0) return true;
    const worst = refused.reduce((a, b) => (b.retryAfter > a.retryAfter ? b : a));
    this.metricsService.countRateLimitRefusal(callerOf(request).tier, worst.window);
    throw rateLimitExceeded(worst, {}, worst.setting);
  }

  /** Counts one window and records its state; the decision waits for every window. */
  protected override async handleRequest({
    context,
    limit,
    ttl,
    throttler,
    blockDuration,
    getTracker,
  }: ThrottlerRequest): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const name = throttler.name as WindowName;
    const counters = this.countersOf(context, name, {
      tracker: await getTracker(request, context),
      limit,
      setting: this.rateLimits.tierSetting(callerOf(request).tier, name),
    });
    const states = await Promise.all(
      counters.map(async (counter) => {
        const key = counterKey(name, counter.tracker);
        const hits = await this.storageService.increment(
          key,
          ttl,
          counter.limit,
          blockDuration,
          name,
        );
        const state = windowState(name, counter.limit, hits.totalHits, hits.timeToExpire);
        return { ...state, setting: counter.setting };
      }),
    );
    const windows = this.spent.get(request) ?? [];
    windows.push(...states);
    this.spent.set(request, windows);
    return true;
  }

  /** What one window of this request spends: the caller's budget, and the address's bounds. */
  private countersOf(
    context: ExecutionContext,
    window: WindowName,
    caller: BudgetCounter,
  ): BudgetCounter[] {
    const request = context.switchToHttp().getRequest<Request>();
    const perMinute = window === 'minute';
    if (request.principal && isUncountedRoute(this.reflector, context)) {
      return perMinute ? [this.rateLimits.budgetReads(request)] : [];
    }
    if (request.authFailure && perMinute) {
      return [caller, this.rateLimits.refusedCredentials(request)];
    }
    return [caller];
  }

  // Decided by the route that matched, never by the request's spelling of the path.
  // Operational endpoints outside the API prefix (health, docs, media) are not limited.
  protected override shouldSkip(context: ExecutionContext): Promise<boolean> {
    const route = (context.switchToHttp().getRequest<Request>().route as { path?: string })?.path;
    return Promise.resolve(!isUnderApiPrefix(route ?? ''));
  }

  protected override getTracker(request: Request): Promise<string> {
    return Promise.resolve(callerOf(request).tracker);
  }
}
