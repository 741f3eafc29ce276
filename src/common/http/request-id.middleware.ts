import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { REQUEST_ID_HEADER } from './header-names.js';

// Echo a caller's id only when it is short and harmless in logs and headers.
const WELL_FORMED = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.get(REQUEST_ID_HEADER);
  req.ownRequestId = randomUUID();
  if (incoming && WELL_FORMED.test(incoming)) req.clientRequestId = incoming;
  req.requestId = req.clientRequestId ?? req.ownRequestId;
  res.setHeader(REQUEST_ID_HEADER, req.requestId);
  next();
}

/**
 * The ids a log line names its request by, the two an audit entry records: the service's own
 * id as `requestId`, a caller's X-Request-Id beside it. The caller's id is not the join: any
 * caller may repeat another request's.
 */
export function logIdsOf(req: Request): { requestId: string; clientRequestId?: string } {
  return {
    requestId: req.ownRequestId,
    ...(req.clientRequestId ? { clientRequestId: req.clientRequestId } : {}),
  };
}
