import type { Role } from './principal.js';

/** What an API key may be limited to; each authenticated route needs one (@RequiredScope). */
export const API_KEY_SCOPES = [
  'pets:read',
  'pets:write',
  'categories:read',
  'categories:write',
  'media:write',
  'adoptions:read',
  'adoptions:write',
  'users:read',
  'users:write',
  'webhooks:read',
  'audit:read',
] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

const CUSTOMER_SCOPES: readonly ApiKeyScope[] = [
  'pets:read',
  'categories:read',
  'adoptions:read',
  'adoptions:write',
  'users:read',
  'users:write',
];

/**
 * The scopes each role allows: those of the routes its @Roles admit (its own profile for
 * `users:*` below admin). The route test checks every route against this table.
 */
export const ROLE_SCOPES: Readonly<Record<Role, readonly ApiKeyScope[]>> = {
  admin: API_KEY_SCOPES,
  user: API_KEY_SCOPES.filter(
    (scope) => CUSTOMER_SCOPES.includes(scope) || scope === 'pets:write' || scope === 'media:write',
  ),
  customer: API_KEY_SCOPES.filter((scope) => CUSTOMER_SCOPES.includes(scope)),
};

/**
 * What a key may do now: its granted scopes (all, when it was made without a list) that its
 * owner's current role still allows, in the order of API_KEY_SCOPES.
 */
export function effectiveScopes(
  role: Role,
  granted: readonly ApiKeyScope[] | null,
): readonly ApiKeyScope[] {
  const allowed = ROLE_SCOPES[role];
  return granted === null ? allowed : allowed.filter((scope) => granted.includes(scope));
}
