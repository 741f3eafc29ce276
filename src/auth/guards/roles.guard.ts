import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { DEFAULT_ROLES, ROLES_KEY } from '../../common/decorators/roles.decorator.js';
import type { Role } from '../../common/types/principal.js';
import { ApiException } from '../../common/errors/api-exception.js';
import { RouteMetadata } from '../../common/metadata/route-metadata.js';

/**
 * Enforces @Roles(...), or DEFAULT_ROLES on a route without it; runs after
 * AuthenticationGuard, so a principal is present on every route that is not @Public().
 */
@Injectable()
export class RolesGuard implements CanActivate {
  constructor(private readonly reflector: RouteMetadata) {}

  canActivate(context: ExecutionContext): boolean {
    const roles =
      this.reflector.getAllAndOverride<readonly Role[] | undefined>(ROLES_KEY, [
        context.getHandler(),
        context.getClass(),
      ]) ?? DEFAULT_ROLES;
    const { principal } = context.switchToHttp().getRequest<Request>();
    if (!principal || roles.includes(principal.role)) return true;
    throw ApiException.forbidden(`This operation requires the role ${roles.join(' or ')}`);
  }
}
