import { METHOD_METADATA } from '@nestjs/common/constants.js';
import { DECORATORS, getSchemaPath } from '@nestjs/swagger';
import type { ErrorCode } from '../common/errors/api-exception.js';
import { ErrorResponse } from './error-response.dto.js';

export type ErrorCodesByStatus = Partial<Record<number, readonly ErrorCode[]>>;

const API_ERRORS_KEY = 'petstore:api-errors';

const STATUS_TEXT: Record<number, string> = {
  400: 'The request is invalid',
  401: 'No valid credential',
  403: 'The credential does not allow this',
  404: 'Not found',
  409: 'Conflicts with the current state',
  412: 'The resource changed since the client read it',
  413: 'The body is too large',
  415: 'Wrong request content type',
  422: 'Understood, but refused as sent',
  429: 'Rate limit exceeded',
  500: 'Unexpected error',
  503: 'A required backend is unavailable; retry after Retry-After seconds',
};

/** The error body of docs/api.md with `code` narrowed to what this response can carry. */
export function errorSchema(codes: readonly ErrorCode[]) {
  return {
    allOf: [
      { $ref: getSchemaPath(ErrorResponse) },
      { type: 'object', properties: { code: { type: 'string', enum: [...codes] } } },
    ],
  };
}

/**
 * Documents the error codes an operation can answer, by status. Unlike `@ApiResponse`, codes
 * given for the same status by several decorators (class and method, composed decorators)
 * are merged, so that e.g. a 400 lists both the body's and the path id's codes. On a class it
 * applies to every route handler; class decorators run after method decorators, so the
 * merge sees both.
 */
export function ApiErrors(errors: ErrorCodesByStatus): ClassDecorator & MethodDecorator {
  return (target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    const handlers = descriptor
      ? [descriptor.value as object]
      : routeHandlersOf(target as { prototype: object });
    for (const handler of handlers) documentErrors(handler, errors);
  };
}

function routeHandlersOf(controller: { prototype: object }): object[] {
  const proto = controller.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(proto)
    .map((name) => Object.getOwnPropertyDescriptor(proto, name)?.value as unknown)
    .filter(
      (value): value is object =>
        typeof value === 'function' && Reflect.hasMetadata(METHOD_METADATA, value),
    );
}

/** The documented response of an error status that can carry these codes. */
export function errorResponse(status: number, codes: readonly ErrorCode[]) {
  return {
    description: `${STATUS_TEXT[status] ?? 'Error'}: ${codes.join(', ')}`,
    schema: errorSchema(codes),
  };
}

function documentErrors(handler: object, errors: ErrorCodesByStatus): void {
  const merged: Record<string, ErrorCode[]> = {
    ...(Reflect.getMetadata(API_ERRORS_KEY, handler) as Record<string, ErrorCode[]> | undefined),
  };
  for (const [status, codes] of Object.entries(errors)) {
    merged[status] = [...new Set([...(merged[status] ?? []), ...(codes ?? [])])];
  }
  Reflect.defineMetadata(API_ERRORS_KEY, merged, handler);
  const responses = {
    ...(Reflect.getMetadata(DECORATORS.API_RESPONSE, handler) as object | undefined),
  } as Record<string, unknown>;
  for (const [status, codes] of Object.entries(merged)) {
    responses[status] = errorResponse(Number(status), codes);
  }
  Reflect.defineMetadata(DECORATORS.API_RESPONSE, responses, handler);
}
