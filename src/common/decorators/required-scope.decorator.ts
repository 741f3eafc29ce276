import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { ApiKeyScope } from '../types/api-key-scope.js';

export const REQUIRED_SCOPE_KEY = 'petstore:required-scope';

/** The OpenAPI extension listing the scope an API key needs for an operation (none: any key). */
export const REQUIRED_SCOPES_EXTENSION = 'x-required-scopes';

/** What @AnyScope() records: the route reads only the caller's own state, any key may call it. */
export const ANY_SCOPE = 'any';

/**
 * The scope an API key needs on a route; bearer tokens have every scope of their role.
 * Declared once per route beside @Roles, read by ScopesGuard, and documented from the same
 * metadata (`x-required-scopes`, the security requirement and the 403), so they cannot drift.
 * An API key on an authenticated route that declares none is refused.
 */
export const RequiredScope = (scope: ApiKeyScope) =>
  applyDecorators(
    SetMetadata(REQUIRED_SCOPE_KEY, scope),
    ApiExtension(REQUIRED_SCOPES_EXTENSION, [scope]),
  );

/** Any API key may call the route, whatever its scopes. */
export const AnyScope = () =>
  applyDecorators(
    SetMetadata(REQUIRED_SCOPE_KEY, ANY_SCOPE),
    ApiExtension(REQUIRED_SCOPES_EXTENSION, []),
  );
