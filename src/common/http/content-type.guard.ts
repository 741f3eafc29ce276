import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { CONSUMES_KEY, NO_BODY, OPTIONAL_JSON } from '../decorators/consumes.decorator.js';
import { ApiException } from '../errors/api-exception.js';
import { RouteMetadata } from '../metadata/route-metadata.js';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

// Read from the header itself: `req.is()` answers null for an empty body.
function mediaTypeOf(request: Request): string {
  return (request.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
}

// Clients send an empty POST with `Content-Length: 0`, or with neither length nor chunks.
function hasBody(request: Request): boolean {
  const length = request.get('content-length');
  return request.get('transfer-encoding') !== undefined || (length !== undefined && length !== '0');
}

/** A `@NoBody()` action's JSON body may be `{}`; any field in it is unknown (docs/input.md). */
function refuseFields(body: unknown): void {
  const fields = typeof body === 'object' && body !== null ? Object.keys(body) : [];
  if (fields.length === 0) return;
  throw ApiException.validation(
    fields.map((field) => ({ field, message: `property ${field} should not exist` })),
  );
}

/**
 * Refuses a JSON body that could not be read (400, 413 or 415, recorded by
 * JsonBodyMiddleware), a POST/PUT whose Content-Type is not the one its handler consumes
 * (415), and any field in the body of an action that takes none (400). The last global guard, so after the
 * credential and role checks and before any interceptor and pipe: a guard, not an
 * interceptor, because one global interceptor puts every request of the app through RxJS.
 */
@Injectable()
export class ContentTypeGuard implements CanActivate {
  constructor(private readonly reflector: RouteMetadata) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request>();
    if (request.bodyError) throw request.bodyError;
    if (!METHODS_WITH_BODY.has(request.method)) return true;
    const consumes = this.reflector.get<string | undefined>(CONSUMES_KEY, context.getHandler());
    const bodyOptional = consumes === NO_BODY || consumes === OPTIONAL_JSON;
    if (bodyOptional && !hasBody(request)) return true;
    const expected = consumes === undefined || bodyOptional ? 'application/json' : consumes;
    if (mediaTypeOf(request) !== expected) {
      throw new ApiException('UNSUPPORTED_MEDIA_TYPE', `Content-Type must be ${expected}`);
    }
    if (consumes === NO_BODY) refuseFields(request.body);
    return true;
  }
}
