import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiException, ERROR_STATUS, type ErrorCode } from '../errors/api-exception.js';
import { allowedMethods, originalPath } from '../http/allowed-methods.js';
import { logIdsOf } from '../http/request-id.middleware.js';
import { BackendUnavailableError } from '../errors/backend-unavailable.error.js';
import { constraintErrorOf } from '../errors/constraint-errors.js';
import {
  isDatabaseUnavailable,
  isStatementCancelled,
  isTransactionConflict,
} from '../errors/database-errors.js';
import { messageOf, stackOf } from '../errors/message-of.js';

// The codes Nest's own HttpExceptions are answered with, found by their status.
const CODE_BY_STATUS = new Map(
  (
    [
      'VALIDATION_ERROR',
      'AUTHENTICATION_REQUIRED',
      'INSUFFICIENT_PERMISSIONS',
      'NOT_FOUND',
      'METHOD_NOT_ALLOWED',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'RATE_LIMIT_EXCEEDED',
      'SERVICE_UNAVAILABLE',
    ] satisfies ErrorCode[]
  ).map((code) => [ERROR_STATUS[code] as number, code]),
);

const DATABASE_RETRY_AFTER_SECONDS = 5;
// A lost deadlock or serialization conflict is over once the other transaction ends.
const CONFLICT_RETRY_AFTER_SECONDS = 1;

/** The one place where anything thrown becomes the error body of docs/api.md. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const request = ctx.getRequest<Request>();
    const response = ctx.getResponse<Response>();
    const error = apiExceptionFor(exception, request);
    // Without its query string, which may carry a token.
    const path = request.originalUrl.split('?')[0];

    if (error.code === 'SERVICE_UNAVAILABLE') {
      // An outage, not a bug: one line with the cause, no stack for every refused request.
      // A deliberate 503 (readiness) has logged its reason where it was decided.
      if (!(exception instanceof ApiException)) {
        this.logger.warn(
          `${request.method} ${path} answered 503 [${idsOf(request)}]: ${messageOf(exception)}`,
        );
      }
    } else if (error.getStatus() >= 500) {
      this.logger.error(`${request.method} ${path} failed [${idsOf(request)}]`, stackOf(exception));
    }
    this.send(error, request, response);
  }

  private send(error: ApiException, request: Request, response: Response): void {
    if (response.headersSent) return;
    for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
    response.status(error.getStatus()).json({
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      requestId: request.requestId,
    });
  }
}

/** The request's ids in a message, as its log fields name them: `requestId=… clientRequestId=…`. */
function idsOf(request: Request): string {
  return Object.entries(logIdsOf(request))
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
}

function noRoute(request: Request): ApiException {
  const allow = allowedMethods(request);
  const path = originalPath(request);
  if (allow.length === 0) {
    return new ApiException('NOT_FOUND', `No route for ${request.method} ${path}`);
  }
  return new ApiException(
    'METHOD_NOT_ALLOWED',
    `${request.method} is not allowed on ${path}`,
    { allowed: allow },
    { Allow: allow.join(', ') },
  );
}

/**
 * What anything thrown is answered as. Exported for the one other place that must know the
 * answer before it is sent: the Idempotency-Key interceptor, which stores it for replays.
 */
export function apiExceptionFor(exception: unknown, request: Request): ApiException {
  if (exception instanceof ApiException) return exception;
  if (exception instanceof HttpException) {
    const code = CODE_BY_STATUS.get(exception.getStatus());
    // Handlers throw ApiException for missing resources: a bare 404 is Nest's "no route".
    if (code === 'NOT_FOUND') return noRoute(request);
    if (code) return new ApiException(code, exception.message);
  }
  const refused = constraintErrorOf(exception);
  if (refused) return refused;
  if (exception instanceof BackendUnavailableError) {
    return ApiException.retryLater(
      'SERVICE_UNAVAILABLE',
      `${exception.backend} is unavailable; retry shortly`,
      exception.retryAfterSeconds,
    );
  }
  if (isTransactionConflict(exception)) {
    return ApiException.retryLater(
      'SERVICE_UNAVAILABLE',
      'A concurrent write got in the way; retry shortly',
      CONFLICT_RETRY_AFTER_SECONDS,
    );
  }
  if (isStatementCancelled(exception)) {
    return ApiException.retryLater(
      'SERVICE_UNAVAILABLE',
      'The request ran past its time limit and was stopped; retry shortly, or narrow it',
      DATABASE_RETRY_AFTER_SECONDS,
    );
  }
  if (isDatabaseUnavailable(exception)) {
    return ApiException.retryLater(
      'SERVICE_UNAVAILABLE',
      'The database is unavailable; retry shortly',
      DATABASE_RETRY_AFTER_SECONDS,
    );
  }
  return new ApiException('INTERNAL_ERROR', 'An unexpected error occurred');
}
