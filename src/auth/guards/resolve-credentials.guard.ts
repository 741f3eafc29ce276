import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { IS_PUBLIC_KEY } from '../../common/decorators/public.decorator.js';
import { ApiException } from '../../common/errors/api-exception.js';
import { API_KEY_HEADER } from '../../common/http/header-names.js';
import type { Principal } from '../../common/types/principal.js';
import { RateLimitService } from '../../rate-limit/rate-limit.service.js';
import { ApiKeyAuthGuard } from './api-key-auth.guard.js';
import { JwtAuthGuard } from './jwt-auth.guard.js';
import { RouteMetadata } from '../../common/metadata/route-metadata.js';

/**
 * First global guard: resolves the request's credentials into who it acts as
 * (`request.principal`), or why they were refused (`request.authFailure`), or a rate-limit
 * refusal recorded instead of a look-up (`request.rateLimitRefusal`). It never refuses the
 * request itself (hence its name: it resolves, AuthenticationGuard refuses), so that the
 * rate limiter after it can count invalid credentials by client address before
 * AuthenticationGuard rejects them.
 *
 * Each credential runs through its own passport guard, only when its header is sent:
 * `AuthGuard(['jwt', 'api-key'])` would stop at the first strategy that succeeds, and both
 * must be valid when both are sent (docs/identity.md, Design notes; the bearer token then
 * decides).
 *
 * A credential is looked up only while its client address has budget for look-ups left
 * (RateLimitService.lookUpRefusal); past it, the 429 is recorded for the rate limiter.
 *
 * Credentials are looked at only where they matter: a @Public() route (login among them)
 * ignores them and is counted by client address, whatever headers come with it.
 */
@Injectable()
export class ResolveCredentialsGuard implements CanActivate {
  constructor(
    private readonly reflector: RouteMetadata,
    private readonly jwtGuard: JwtAuthGuard,
    private readonly apiKeyGuard: ApiKeyAuthGuard,
    private readonly rateLimits: RateLimitService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, targets)) return true;
    const request = context.switchToHttp().getRequest<Request>();
    // An empty header is a credential sent, and refused, not a credential left out.
    const token = request.headers.authorization;
    const key = request.get(API_KEY_HEADER);
    if (token === undefined && key === undefined) return true;
    // Before any look-up: an address past the budgets that bound them gets a 429 instead.
    request.rateLimitRefusal = await this.rateLimits.lookUpRefusal(context);
    if (request.rateLimitRefusal) return true;
    try {
      const viaToken =
        token === undefined ? undefined : await this.authenticate(this.jwtGuard, context, request);
      const viaKey =
        key === undefined ? undefined : await this.authenticate(this.apiKeyGuard, context, request);
      request.principal = viaToken ?? viaKey;
    } catch (error) {
      if (!(error instanceof ApiException)) throw error;
      request.principal = undefined;
      request.authFailure = error;
    }
    return true;
  }

  /** Passport's guard stores what the strategy returned on `request.principal`. */
  private async authenticate(
    guard: CanActivate,
    context: ExecutionContext,
    request: Request,
  ): Promise<Principal | undefined> {
    await guard.canActivate(context);
    return request.principal;
  }
}
