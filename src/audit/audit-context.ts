import { AsyncLocalStorage } from 'node:async_hooks';
import {
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import type { Request } from 'express';
import { Observable } from 'rxjs';
import { requestOriginOf, type RequestOrigin } from '../common/http/request-origin.js';
import type { AuditCredential } from './audit-actions.js';

/** Who acted, and from where: what an entry says besides the change itself. */
export interface AuditContext extends RequestOrigin {
  actorUserId: number | null;
  actorUsername: string | null;
  actorCredential: AuditCredential;
  actorApiKeyPrefix: string | null;
}

const requests = new AsyncLocalStorage<Request>();

/**
 * The request being handled, kept by AuditContextInterceptor: the audit reads the actor, the
 * client address and the request id from it, so that neither the features' method signatures
 * nor their domain events carry them. Read when an entry is made, after the guards have set
 * the principal.
 */
export function currentAuditContext(): AuditContext {
  const req = requests.getStore();
  const principal = req?.principal;
  return {
    actorUserId: principal?.userId ?? null,
    actorUsername: null,
    actorCredential: principal ? (principal.kind === 'api-key' ? 'api-key' : 'jwt') : 'none',
    actorApiKeyPrefix: principal?.apiKeyPrefix ?? null,
    ...requestOriginOf(req),
  };
}

/** Runs `work` as if handling `req` (tests, and the interceptor below). */
export function withAuditRequest<T>(req: Request, work: () => T): T {
  return requests.run(req, work);
}

// Reads change nothing, so they record nothing: they skip the storage and its Observable.
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Keeps the request for the handler and all it calls. An interceptor rather than a
 * middleware: body parsing resumes middleware from stream callbacks, outside the storage a
 * middleware would have entered, while the handler runs inside this subscription.
 */
@Injectable()
export class AuditContextInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<Request>();
    if (SAFE_METHODS.has(req.method)) return next.handle();
    return new Observable((subscriber) =>
      withAuditRequest(req, () => next.handle().subscribe(subscriber)),
    );
  }
}
