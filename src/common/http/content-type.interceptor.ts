import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { CONSUMES_KEY } from '../decorators/consumes.decorator.js';
import { ApiException } from '../errors/api-exception.js';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

// Read from the header itself: `req.is()` answers null for an empty body.
function mediaTypeOf(request: Request): string {
  return (request.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
}

/** Refuses a POST/PUT whose Content-Type is not the one its handler consumes (415). */
@Injectable()
export class ContentTypeInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request>();
    if (METHODS_WITH_BODY.has(request.method)) {
      const expected =
        this.reflector.get<string | undefined>(CONSUMES_KEY, context.getHandler()) ??
        'application/json';
      if (mediaTypeOf(request) !== expected) {
        throw new ApiException('UNSUPPORTED_MEDIA_TYPE', `Content-Type must be ${expected}`);
      }
    }
    return next.handle();
  }
}
