import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { IDEMPOTENCY_KEY_HEADER } from '../common/http/header-names.js';
import { ApiErrors } from '../openapi/api-errors.decorator.js';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from './idempotency-key.js';
import {
  IdempotencyInterceptor,
  idempotentOptions,
  type IdempotentOptions,
} from './idempotency.interceptor.js';

/**
 * A POST that takes an `Idempotency-Key`: the interceptor, the header parameter and the
 * 409/422 answers in the OpenAPI document. Put it above `@UseInterceptors(...)` of an
 * interceptor that parses the body, so that it runs inside it and fingerprints the parsed
 * request.
 */
export const Idempotent = (options: IdempotentOptions = {}) =>
  applyDecorators(
    idempotentOptions(options),
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: IDEMPOTENCY_KEY_HEADER,
      required: false,
      description:
        'Makes a retry safe: the first response to this key (2xx, or a 4xx other than 400) ' +
        'is kept 24 h for you and this operation and replayed, with `Idempotent-Replayed: ' +
        'true`, to the same request; a 400 or 5xx releases the key. The same key with ' +
        'another request is 422 IDEMPOTENCY_KEY_REUSED; while the first still runs, 409 ' +
        'IDEMPOTENCY_KEY_IN_PROGRESS with `Retry-After`.',
      schema: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_IDEMPOTENCY_KEY_LENGTH,
        pattern: '^[\\x20-\\x7E]+$',
      },
    }),
    ApiErrors({
      400: ['VALIDATION_ERROR'],
      409: ['IDEMPOTENCY_KEY_IN_PROGRESS'],
      422: ['IDEMPOTENCY_KEY_REUSED'],
    }),
  );
