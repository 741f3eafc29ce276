import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { SESSION_IP_MAX_LENGTH, SESSION_USER_AGENT_MAX_LENGTH } from './session.entity.js';

/** Where a login came from, as its session records it. */
export interface SessionClient {
  userAgent: string | null;
  ip: string | null;
}

/**
 * The request's `User-Agent` (cut to its column's length) and client address (`req.ip`,
 * which honours X-Forwarded-For only as far as TRUST_PROXY allows).
 */
export const CurrentSessionClient = createParamDecorator(
  (_data: unknown, context: ExecutionContext): SessionClient => {
    const request = context.switchToHttp().getRequest<Request>();
    const userAgent = request.headers['user-agent'];
    return {
      userAgent: userAgent ? userAgent.slice(0, SESSION_USER_AGENT_MAX_LENGTH) : null,
      ip: request.ip ? request.ip.slice(0, SESSION_IP_MAX_LENGTH) : null,
    };
  },
);
