import { applyDecorators, SetMetadata, type Type } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiHeader,
  ApiParam,
  ApiResponse,
  ApiSecurity,
} from '@nestjs/swagger';
import { CONSUMES_KEY, NO_BODY, OPTIONAL_JSON } from '../common/decorators/consumes.decorator.js';
import { MAX_IF_MATCH_LENGTH } from '../common/http/conditional-requests.js';
import { ApiErrors } from './api-errors.decorator.js';
import { ID_SCHEMA } from './schemas.js';
import {
  CACHE_CONTROL_HEADER,
  ETAG_HEADER,
  IF_MATCH_HEADER,
  IF_NONE_MATCH_HEADER,
} from '../common/http/header-names.js';

export const BEARER_SCHEME = 'bearer';
export const API_KEY_SCHEME = 'apiKey';

export interface ApiAuthOptions {
  /** Bearer token only (API key management): an API key alone gets 403. */
  bearerOnly?: boolean;
}

/**
 * An operation that needs a credential: its security requirement (either scheme, or the
 * bearer token only) and the responses every authenticated route can give: 401 for a
 * missing or refused credential, 403 for a role it does not admit (a customer, outside the
 * routes open to every role) or an API key on a bearer-only route, 429 past the budget (a
 * refused credential spends the address's budget even on GET /rate-limit), 503 when the
 * account cannot be read.
 */
export const ApiAuth = ({ bearerOnly = false }: ApiAuthOptions = {}) =>
  applyDecorators(
    ApiBearerAuth(BEARER_SCHEME),
    ...(bearerOnly ? [] : [ApiSecurity(API_KEY_SCHEME)]),
    ApiErrors({
      401: ['AUTHENTICATION_REQUIRED', 'INVALID_TOKEN', 'EXPIRED_TOKEN', 'INVALID_API_KEY'],
      403: ['INSUFFICIENT_PERMISSIONS', 'MFA_ENROLMENT_REQUIRED'],
      429: ['RATE_LIMIT_EXCEEDED'],
      503: ['SERVICE_UNAVAILABLE'],
    }),
  );

/** A public operation under /v1: no credential, but the caller's address is rate limited. */
export const ApiPublicRateLimited = () => ApiErrors({ 429: ['RATE_LIMIT_EXCEEDED'] });

/** A JSON request body: what the body parser, the content-type check and validation refuse. */
export const ApiJsonBody = () =>
  ApiErrors({
    400: ['VALIDATION_ERROR', 'INVALID_JSON'],
    413: ['PAYLOAD_TOO_LARGE'],
    415: ['UNSUPPORTED_MEDIA_TYPE'],
  });

/**
 * A POST that takes no body (an action on the resource in its path): sent without one, it
 * has no content type to check. A body sent anyway must be JSON, as on any other route,
 * and hold no field (ContentTypeGuard): `{}`.
 */
export const NoBody = () => applyDecorators(SetMetadata(CONSUMES_KEY, NO_BODY), ApiJsonBody());

/** A POST whose JSON body may be left out: sent, it must be JSON and pass `type`'s rules. */
export const OptionalJsonBody = (type: Type) =>
  applyDecorators(
    SetMetadata(CONSUMES_KEY, OPTIONAL_JSON),
    ApiBody({ type, required: false }),
    ApiJsonBody(),
  );

/** A query DTO: out-of-range, non-integer or unknown parameters are refused, never clamped. */
export const ApiValidatedQuery = () => ApiErrors({ 400: ['VALIDATION_ERROR'] });

/** A path id parsed by ParseIdPipe: a positive decimal int64 without leading zeros, else 400. */
export const ApiIdParam = (name: string, description: string) =>
  applyDecorators(
    ApiParam({ name, description, schema: { ...ID_SCHEMA } }),
    ApiErrors({ 400: ['VALIDATION_ERROR'] }),
  );

/** The `ETag` of a single resource, sent with its 200 (GET and PUT) and 304 answers. */
export const ETAG_RESPONSE_HEADERS = {
  [ETAG_HEADER]: {
    description:
      'Strong validator derived from the resource’s row version and what it shows of others: ' +
      'it changes with every write of the resource or of what it shows. Send it back in ' +
      'If-None-Match (GET) or If-Match (PUT, DELETE, a move).',
    required: true,
    schema: { type: 'string', maxLength: 64, pattern: '^"[0-9A-Za-z._-]+"$' },
  },
};

/**
 * Documents the `Cache-Control: no-store` that `@Header` sets on a response showing a secret
 * once (docs/api.md). Nest sets it before the interceptors run, so an Idempotency-Key replay
 * carries it too.
 */
export const noStoreResponseHeaders = (secret: string) => ({
  [CACHE_CONTROL_HEADER]: {
    description: `The ${secret} is shown once: no cache may keep this response`,
    required: true,
    schema: { type: 'string', enum: ['no-store'] },
  },
});

/** A GET of a single resource: 304 with no body when If-None-Match holds its current ETag. */
export const ApiConditionalRead = () =>
  applyDecorators(
    ApiHeader({
      name: IF_NONE_MATCH_HEADER,
      required: false,
      description: 'ETags the client holds (or `*`); a match answers 304 with no body',
      schema: { type: 'string' },
    }),
    ApiResponse({
      status: 304,
      description: 'If-None-Match matched: the client’s copy is current',
      headers: ETAG_RESPONSE_HEADERS,
    }),
  );

/**
 * A PUT or DELETE that honours If-Match: the write happens only if the resource's current ETag
 * is one of those given (or `*`), else 412 with `details.currentEtag` and nothing changes.
 */
export const ApiConditionalWrite = () =>
  applyDecorators(
    ApiHeader({
      name: IF_MATCH_HEADER,
      required: false,
      description:
        'Write only if the current ETag is one of these (or `*`); else 412 PRECONDITION_FAILED',
      schema: { type: 'string', maxLength: MAX_IF_MATCH_LENGTH },
    }),
    ApiErrors({ 400: ['VALIDATION_ERROR'], 412: ['PRECONDITION_FAILED'] }),
  );
