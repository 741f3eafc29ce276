import type { Request } from 'express';

/**
 * Where a request came from, as the audit log records it: kept by work done after the
 * answer (from the outbox) to record the request that asked for it.
 */
export interface RequestOrigin {
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  clientRequestId: string | null;
}

/** A User-Agent is kept cut to this; the audit log's `user_agent` column is declared from it. */
export const USER_AGENT_MAX_LENGTH = 256;

export function requestOriginOf(req: Request | undefined): RequestOrigin {
  const userAgent = req?.headers['user-agent'];
  return {
    ip: req?.ip ?? null,
    userAgent: userAgent ? userAgent.slice(0, USER_AGENT_MAX_LENGTH) : null,
    requestId: req?.ownRequestId ?? null,
    clientRequestId: req?.clientRequestId ?? null,
  };
}
