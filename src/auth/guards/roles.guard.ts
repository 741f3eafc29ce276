import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { ROLES_KEY } from '../../common/decorators/roles.decorator.js';
import type { Role } from '../../common/types/principal.js';
import { ApiException } from '../../common/errors/api-exception.js';

/** Enforces @Roles(...); runs after AuthenticationGuard, so a principal is present. */
@Injectable()
export class RolesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const roles = this.reflector.getAllAndOverride<Role[] | undefined>(ROLES_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!roles || roles.length === 0) return true;
    const role = context.switchToHttp().getRequest<Request>().principal?.role;
    if (role && roles.includes(role)) return true;
    throw ApiException.forbidden(`This operation requires the role ${roles.join(' or ')}`);
  }
}
