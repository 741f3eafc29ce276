import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import {
  ACCEPTED_SCOPES_HEADER,
  API_KEY_HEADER,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  RATE_LIMIT_LIMIT_HEADER,
  RATE_LIMIT_REMAINING_HEADER,
  RATE_LIMIT_RESET_HEADER,
  REQUEST_ID_HEADER,
  RETRY_AFTER_HEADER,
  WWW_AUTHENTICATE_HEADER,
} from '../common/http/header-names.js';
import { REQUIRED_ROLES_EXTENSION } from '../common/decorators/roles.decorator.js';
import { REQUIRED_SCOPES_EXTENSION } from '../common/decorators/required-scope.decorator.js';
import type { ErrorCode } from '../common/errors/api-exception.js';
import { API_PREFIX, isUnderApiPrefix, MEDIA_PATH } from '../common/http/route-space.js';
import { errorResponse, errorSchema } from './api-errors.decorator.js';
import { API_KEY_SCHEME, BEARER_SCHEME } from './api-docs.decorators.js';
import { documentParts } from './document-parts.js';
import { ErrorResponse } from './error-response.dto.js';

/** The version of the API description; the API itself is versioned by its path (`/v1`). */
export const API_DESCRIPTION_VERSION = '1.0.0';

const DESCRIPTION = `A pet store's catalogue: pets (with category, status, photos and tags),
categories, users, API keys and webhook subscriptions, under \`/${API_PREFIX}\`. Stored images are
served at \`/${MEDIA_PATH}/{key}\`. The events POSTed to webhook subscribers are under \`webhooks\`.

Every response carries \`X-Request-Id\`; every error has the body \`{code, message, details?, requestId}\`.
Every response under \`/${API_PREFIX}\` carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and
\`X-RateLimit-Reset\` for the caller's tightest window (except a request refused before it is
counted: a body that is not valid JSON, too large, or not UTF-8); past a limit the answer is
429 with \`Retry-After\`. An unknown route is 404 NOT_FOUND; a known path with another method
is 405 METHOD_NOT_ALLOWED with \`Allow\`.`;

type Schema = Record<string, unknown>;
type Response = { headers?: Record<string, unknown>; content?: Record<string, { schema: Schema }> };
type Responses = Record<string, Response>;
type Operation = {
  responses: Responses;
  parameters?: { in?: string; name?: string }[];
  security?: Record<string, string[]>[];
  [REQUIRED_ROLES_EXTENSION]?: string[];
  [REQUIRED_SCOPES_EXTENSION]?: string[];
};

const integerHeader = (description: string, required: boolean) => ({
  description,
  required,
  schema: { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
});

const RATE_LIMIT_HEADERS = {
  [RATE_LIMIT_LIMIT_HEADER]: 'Requests allowed in the tightest window',
  [RATE_LIMIT_REMAINING_HEADER]: 'Requests left in that window',
  [RATE_LIMIT_RESET_HEADER]: 'Unix time (seconds) when that window resets',
};

/** Shared header definitions, referenced from every response. */
const HEADERS: Record<string, unknown> = {
  RequestId: {
    description: 'The request id: a well-formed incoming X-Request-Id echoed, else a new UUID',
    required: true,
    schema: { type: 'string', maxLength: 128, pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  },
  RetryAfter: {
    description: 'Seconds to wait before retrying',
    required: true,
    schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 3600 },
  },
  RetryAfterIfInProgress: {
    description: 'Seconds to wait before retrying; set with IDEMPOTENCY_KEY_IN_PROGRESS',
    required: false,
    schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 3600 },
  },
  IdempotentReplayed: {
    description:
      'true when this response replays the first one to this Idempotency-Key: nothing was done again',
    required: false,
    schema: { type: 'string', enum: ['true'] },
  },
  AcceptedScopes: {
    description:
      'With INSUFFICIENT_SCOPE: the API key scopes this operation accepts, comma-separated',
    required: false,
    schema: { type: 'string', maxLength: 256, pattern: '^[a-z]+:[a-z]+(, ?[a-z]+:[a-z]+)*$' },
  },
  WwwAuthenticate: {
    description: 'The challenge (RFC 9110): which schemes apply, and the bearer error if any',
    required: true,
    schema: { type: 'string', maxLength: 512 },
  },
  ...Object.fromEntries(
    Object.entries(RATE_LIMIT_HEADERS).flatMap(([name, description]) => [
      [headerKey(name, true), integerHeader(description, true)],
      [
        headerKey(name, false),
        integerHeader(`${description}; absent when the request was refused uncounted`, false),
      ],
    ]),
  ),
};

function headerKey(name: string, counted: boolean): string {
  return `${name.replace(/^X-|-/g, '')}${counted ? '' : 'IfCounted'}`;
}

const ref = (key: string) => ({ $ref: `#/components/headers/${key}` });

// Refused before the rate limiter counts the request (JSON body parsing runs first), or
// possibly before it ran at all (unexpected and backend failures).
const STATUSES_WITHOUT_RATE_LIMIT_HEADERS = new Set(['400', '413', '415', '500', '503']);

// What an Idempotency-Key never keeps for replays: refusals before any work, and the
// key's own answers.
const NEVER_REPLAYED = new Set(['400', '401', '413', '422', '429']);

function headersFor(path: string, status: string, idempotent: boolean): Record<string, unknown> {
  const headers: Record<string, unknown> = { [REQUEST_ID_HEADER]: ref('RequestId') };
  if (isUnderApiPrefix(path)) {
    const counted = !STATUSES_WITHOUT_RATE_LIMIT_HEADERS.has(status);
    for (const name of Object.keys(RATE_LIMIT_HEADERS)) {
      headers[name] = ref(headerKey(name, counted));
    }
  }
  if (status === '429' || status === '503') headers[RETRY_AFTER_HEADER] = ref('RetryAfter');
  if (status === '401') headers[WWW_AUTHENTICATE_HEADER] = ref('WwwAuthenticate');
  if (idempotent && status === '409') headers[RETRY_AFTER_HEADER] = ref('RetryAfterIfInProgress');
  if (idempotent && Number(status) < 500 && !NEVER_REPLAYED.has(status)) {
    headers[IDEMPOTENT_REPLAYED_HEADER] = ref('IdempotentReplayed');
  }
  return headers;
}

/** The error codes a documented error response lists (errorSchema's enum). */
function codesOf(response: Response | undefined): ErrorCode[] {
  const schema = response?.content?.['application/json']?.schema as
    { allOf?: { properties?: { code?: { enum?: ErrorCode[] } } }[] } | undefined;
  return schema?.allOf?.[1]?.properties?.code?.enum ?? [];
}

/** Puts `refused` first among the operation's 403 codes. */
function documentForbidden(operation: Operation, refused: ErrorCode): void {
  const codes = [
    refused,
    ...codesOf(operation.responses['403']).filter((code) => code !== refused),
  ];
  const { description, schema } = errorResponse(403, codes);
  operation.responses['403'] = {
    ...operation.responses['403'],
    description,
    content: { 'application/json': { schema } },
  } as Response;
}

// @Roles (common/) records the roles a route admits; the 403 for any other comes first among
// the route's 403 codes.
function documentRoles(operation: Operation): void {
  if (operation[REQUIRED_ROLES_EXTENSION]) documentForbidden(operation, 'INSUFFICIENT_PERMISSIONS');
}

// @RequiredScope (common/) records the scope an API key needs (`x-required-scopes`: OpenAPI
// gives scopes to OAuth2 and OpenID Connect schemes only); a key without it gets the 403
// INSUFFICIENT_SCOPE.
function documentScopes(operation: Operation): void {
  const scopes = operation[REQUIRED_SCOPES_EXTENSION];
  const takesKeys = operation.security?.some((requirement) => API_KEY_SCHEME in requirement);
  if (!scopes?.length || !takesKeys) return;
  documentForbidden(operation, 'INSUFFICIENT_SCOPE');
  operation.responses['403'].headers = {
    ...operation.responses['403'].headers,
    [ACCEPTED_SCOPES_HEADER]: ref('AcceptedScopes'),
  };
}

/**
 * What the decorators cannot say per operation, applied to the scanned document: closed
 * schemas (the service rejects unknown request fields and must not leak response fields),
 * the headers every response carries, the 500 every operation can answer, and the 403s of a
 * route's roles and API key scope.
 */
function finish(document: OpenAPIObject): OpenAPIObject {
  document.components = { ...document.components, headers: HEADERS as never };
  for (const schema of Object.values(document.components?.schemas ?? {}) as Schema[]) {
    if (schema.type === 'object' && schema.additionalProperties === undefined) {
      schema.additionalProperties = false;
    }
  }
  for (const [path, item] of Object.entries(document.paths)) {
    for (const operation of Object.values(item) as Operation[]) {
      const idempotent = (operation.parameters ?? []).some(
        (p) => p.in === 'header' && p.name === IDEMPOTENCY_KEY_HEADER,
      );
      documentRoles(operation);
      documentScopes(operation);
      operation.responses['500'] ??= {
        description: 'Unexpected error: INTERNAL_ERROR (logged with the request id)',
        content: { 'application/json': { schema: errorSchema(['INTERNAL_ERROR']) } },
      } as never;
      for (const [status, response] of Object.entries(operation.responses)) {
        response.headers = { ...headersFor(path, status, idempotent), ...response.headers };
      }
    }
  }
  return document;
}

/** Builds the OpenAPI 3.1 description from the app's routes and decorators. */
export function createOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Pet store catalogue API')
    .setDescription(DESCRIPTION)
    .setVersion(API_DESCRIPTION_VERSION)
    .setContact('Pet store API team', 'https://petstore.invalid/support', 'api@petstore.invalid')
    .addServer(
      '/',
      'The deployment serving this document (local, staging or production)',
      undefined,
      { 'x-internal': false },
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description:
          'A token from POST /v1/auth/login: an HS256 JWS valid for one hour, issuer and ' +
          'audience checked, algorithm pinned (never `none`), following RFC8725.',
      },
      BEARER_SCHEME,
    )
    .addApiKey(
      {
        type: 'apiKey',
        in: 'header',
        name: API_KEY_HEADER,
        description:
          'A key from POST /v1/api-keys (`pk_live_…` or `pk_test_…`); acts as its owner. ' +
          'Not accepted on /v1/api-keys.',
      },
      API_KEY_SCHEME,
    )
    .addTag('auth', 'Logging in')
    .addTag('pets', 'Pets and their images')
    .addTag('categories', 'Pet categories; admins write them')
    .addTag('users', 'Accounts and roles')
    .addTag('api-keys', 'Your API keys (bearer token only)')
    .addTag(
      'webhooks',
      'Subscriptions to pet events (admins), the events POSTed to them, and their delivery log',
    )
    .addTag('adoptions', 'Adoptions: a customer’s request, staff decisions, the pet held meanwhile')
    .addTag('audit', 'The audit log of account, credential and admin actions (admins)')
    .addTag('stats', 'Activity per day (admins)')
    .addTag('rate-limit', 'Your rate-limit budget')
    .addTag('media', 'Stored images, outside /v1')
    .build();
  // Nest scans routes only: the features' registered parts add what no route describes (the
  // events the service sends to subscribers).
  const parts = documentParts();
  const document = SwaggerModule.createDocument(app, config, {
    extraModels: [ErrorResponse, ...parts.flatMap((part) => part.extraModels)],
  });
  const webhooks = Object.assign({}, ...parts.map((part) => part.webhooks)) as object;
  return finish({ ...document, webhooks: webhooks as never });
}
