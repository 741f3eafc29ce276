import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  SetMetadata,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { catchError, mergeMap, of, throwError, type Observable } from 'rxjs';
import { ApiException, type ErrorCode } from '../common/errors/api-exception.js';
import { apiExceptionFor } from '../common/filters/all-exceptions.filter.js';
import { ETAG_HEADER, IDEMPOTENT_REPLAYED_HEADER } from '../common/http/header-names.js';
import { routeOf } from '../common/http/route-label.js';
import { idempotencyKeyOf } from './idempotency-key.js';
import type { StoredResponse } from './idempotency.repository.js';
import { IdempotencyService } from './idempotency.service.js';
import { requestFingerprint } from './request-fingerprint.js';
import { RouteMetadata } from '../common/metadata/route-metadata.js';

export interface IdempotentOptions {
  /** Top-level response fields never stored (a secret shown once): a replay leaves them out. */
  secretFields?: readonly string[];
}

const IDEMPOTENT_OPTIONS = 'petstore:idempotent';
export const idempotentOptions = (options: IdempotentOptions) =>
  SetMetadata(IDEMPOTENT_OPTIONS, options);

// Replayed as they were first sent, when the handler set them; Content-Type follows from
// the JSON body, and per-request headers (X-Request-Id, X-RateLimit-*) are this request's.
const REPLAYED_HEADERS = ['location', 'content-location', ETAG_HEADER.toLowerCase()];

interface StoredError {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/**
 * Runs a POST under its Idempotency-Key (see IdempotencyService), for the routes marked
 * `@Idempotent()`. Inside any interceptor that parses the body (the upload's), so that the
 * fingerprint sees the form; before the pipes, so that it sees their refusals as errors.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly reflector: RouteMetadata,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const key = idempotencyKeyOf(request);
    const fingerprint = key === undefined ? undefined : requestFingerprint(request);
    // Every POST under /v1 that takes a key needs a credential, so a principal is there.
    if (key === undefined || fingerprint === undefined || !request.principal) {
      return next.handle();
    }
    const scope = {
      userId: request.principal.userId,
      operation: `${request.method} ${routeOf(request)}`,
      key,
    };
    const start = await this.idempotency.begin(scope, fingerprint);
    const response = http.getResponse<Response>();
    if ('replay' in start) return replay(start.replay, response);

    const { secretFields = [] } =
      this.reflector.get<IdempotentOptions | undefined>(IDEMPOTENT_OPTIONS, context.getHandler()) ??
      {};
    return next.handle().pipe(
      mergeMap(async (body: unknown) => {
        await this.idempotency.complete(start.claim, stored(response, body, secretFields));
        return body;
      }),
      catchError(async (error: unknown) => {
        await this.idempotency.fail(start.claim, apiExceptionFor(error, request));
        throw error;
      }),
    );
  }
}

/** A success as the client gets it: Nest set the status before the handler ran. */
function stored(
  response: Response,
  body: unknown,
  secretFields: readonly string[],
): StoredResponse {
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = response.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  // As JSON, the way Express sends it (dates as ISO strings), without the secrets.
  const json: unknown = body === undefined ? null : JSON.parse(JSON.stringify(body));
  const kept =
    json !== null && typeof json === 'object' && !Array.isArray(json)
      ? Object.fromEntries(Object.entries(json).filter(([name]) => !secretFields.includes(name)))
      : json;
  return { status: response.statusCode, headers, body: kept };
}

/** The stored answer again; an error goes through the exception filter, as it first did. */
function replay(stored: StoredResponse, response: Response): Observable<unknown> {
  response.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
  for (const [name, value] of Object.entries(stored.headers)) response.setHeader(name, value);
  if (stored.status >= 400) {
    const { code, message, details } = stored.body as StoredError;
    return throwError(() => new ApiException(code, message, details));
  }
  response.status(stored.status);
  return of(stored.body);
}
