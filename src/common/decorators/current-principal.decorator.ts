import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { Principal } from '../types/principal.js';

/**
 * The authenticated principal. Only for routes that require authentication: the
 * authentication guard has refused the request before the handler when there is none.
 */
export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): Principal => {
    const principal = ctx.switchToHttp().getRequest<Request>().principal;
    if (!principal) throw new Error('@CurrentPrincipal() used on a route without authentication');
    return principal;
  },
);
