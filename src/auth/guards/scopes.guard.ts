import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ANY_SCOPE, REQUIRED_SCOPE_KEY } from '../../common/decorators/required-scope.decorator.js';
import { ApiException } from '../../common/errors/api-exception.js';
import { ACCEPTED_SCOPES_HEADER } from '../../common/http/header-names.js';
import { RouteMetadata } from '../../common/metadata/route-metadata.js';
import type { ApiKeyScope } from '../../common/types/api-key-scope.js';

/**
 * Enforces @RequiredScope on API keys; runs after RolesGuard. A bearer token has every scope
 * of its role. The key's scopes came with its row (ApiKeysService.authenticate), already cut
 * to what its owner's role allows now, so the check costs no look-up.
 */
@Injectable()
export class ScopesGuard implements CanActivate {
  constructor(private readonly reflector: RouteMetadata) {}

  canActivate(context: ExecutionContext): boolean {
    const { principal } = context.switchToHttp().getRequest<Request>();
    if (principal?.kind !== 'api-key') return true;
    const required = this.reflector.getAllAndOverride<ApiKeyScope | typeof ANY_SCOPE | undefined>(
      REQUIRED_SCOPE_KEY,
      [context.getHandler(), context.getClass()],
    );
    if (required === ANY_SCOPE) return true;
    // Secure by default: a route that declares no scope is not open to keys.
    if (required === undefined) throw ApiException.forbidden('This operation takes no API key');
    if (principal.apiKeyScopes?.includes(required)) return true;
    throw new ApiException(
      'INSUFFICIENT_SCOPE',
      `This operation needs an API key with the scope ${required}`,
      { required: [required] },
      { [ACCEPTED_SCOPES_HEADER]: required },
    );
  }
}
