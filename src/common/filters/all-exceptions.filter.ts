import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  HttpStatus,
  Logger,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiException, type ErrorCode } from '../errors/api-exception.js';
import { allowedMethods, originalPath } from '../http/allowed-methods.js';
import { BackendUnavailableError } from '../errors/backend-unavailable.error.js';
import {
  isDatabaseUnavailable,
  isTransactionConflict,
  isUniqueViolation,
  uniqueViolationField,
} from '../errors/database-errors.js';

const CODE_BY_STATUS: Partial<Record<number, ErrorCode>> = {
  400: 'VALIDATION_ERROR',
  401: 'AUTHENTICATION_REQUIRED',
  403: 'INSUFFICIENT_PERMISSIONS',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMIT_EXCEEDED',
  503: 'SERVICE_UNAVAILABLE',
};

const DATABASE_RETRY_AFTER_SECONDS = '5';
// A lost deadlock or serialization conflict is over once the other transaction ends.
const CONFLICT_RETRY_AFTER_SECONDS = '1';

/** The one place where anything thrown becomes the contract's error body. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const request = ctx.getRequest<Request>();
    const response = ctx.getResponse<Response>();
    const error = this.toApiException(exception, request);

    if (error.code === 'SERVICE_UNAVAILABLE') {
      // An outage, not a bug: one line with the cause, no stack for every refused request.
      // A deliberate 503 (readiness) has logged its reason where it was decided.
      if (!(exception instanceof ApiException)) {
        this.logger.warn(
          `${request.method} ${request.originalUrl} answered 503 [requestId=${request.requestId}]: ${
            exception instanceof Error ? exception.message : String(exception)
          }`,
        );
      }
    } else if (error.getStatus() >= 500) {
      this.logger.error(
        `${request.method} ${request.originalUrl} failed [requestId=${request.requestId}]`,
        exception instanceof Error ? exception.stack : String(exception),
      );
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

  private noRoute(request: Request): ApiException {
    const allow = allowedMethods(request);
    const path = originalPath(request);
    if (allow.length === 0) {
      return ApiException.notFound('NOT_FOUND', `No route for ${request.method} ${path}`);
    }
    return new ApiException(
      HttpStatus.METHOD_NOT_ALLOWED,
      'METHOD_NOT_ALLOWED',
      `${request.method} is not allowed on ${path}`,
      { allowed: allow },
      { Allow: allow.join(', ') },
    );
  }

  private toApiException(exception: unknown, request: Request): ApiException {
    if (exception instanceof ApiException) return exception;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const code = CODE_BY_STATUS[status];
      // Handlers throw ApiException for missing resources: a bare 404 is Nest's "no route".
      if (code === 'NOT_FOUND') return this.noRoute(request);
      if (code) return new ApiException(status, code, exception.message);
    }
    if (isUniqueViolation(exception)) {
      const field = uniqueViolationField(exception);
      return new ApiException(
        HttpStatus.CONFLICT,
        'CONFLICT',
        field ? `${field} is already taken` : 'A unique value is already taken',
        field ? { field } : undefined,
      );
    }
    if (exception instanceof BackendUnavailableError) {
      return new ApiException(
        HttpStatus.SERVICE_UNAVAILABLE,
        'SERVICE_UNAVAILABLE',
        `${exception.backend} is unavailable; retry shortly`,
        undefined,
        { 'Retry-After': String(exception.retryAfterSeconds) },
      );
    }
    if (isTransactionConflict(exception)) {
      return new ApiException(
        HttpStatus.SERVICE_UNAVAILABLE,
        'SERVICE_UNAVAILABLE',
        'A concurrent write got in the way; retry shortly',
        undefined,
        { 'Retry-After': CONFLICT_RETRY_AFTER_SECONDS },
      );
    }
    if (isDatabaseUnavailable(exception)) {
      return new ApiException(
        HttpStatus.SERVICE_UNAVAILABLE,
        'SERVICE_UNAVAILABLE',
        'The database is unavailable; retry shortly',
        undefined,
        { 'Retry-After': DATABASE_RETRY_AFTER_SECONDS },
      );
    }
    return new ApiException(
      HttpStatus.INTERNAL_SERVER_ERROR,
      'INTERNAL_ERROR',
      'An unexpected error occurred',
    );
  }
}
