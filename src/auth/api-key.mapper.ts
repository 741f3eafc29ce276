import { effectiveScopes } from '../common/types/api-key-scope.js';
import type { Role } from '../common/types/principal.js';
import type { ApiKey } from './api-key.entity.js';
import { EXPIRY_WARNING_DAYS } from './api-key-expiry-warnings.js';
import { ApiKeyResponse } from './dto/api-key-response.dto.js';

/** docs/identity.md: a key is flagged this long before it expires, when its owner is mailed. */
const EXPIRING_SOON_MS = EXPIRY_WARNING_DAYS * 86_400_000;

/**
 * Without the hash, and without the key, which only the creation response carries. `role` is
 * the owner's current one: the scopes shown are those the key has now.
 */
export function toApiKeyResponse(apiKey: ApiKey, role: Role): ApiKeyResponse {
  return {
    id: apiKey.id,
    name: apiKey.name,
    mode: apiKey.mode,
    prefix: apiKey.prefix,
    scopes: [...effectiveScopes(role, apiKey.scopes)],
    createdAt: apiKey.createdAt,
    ...(apiKey.expiresAt && { expiresAt: apiKey.expiresAt }),
    expiringSoon: expiringSoon(apiKey.expiresAt, Date.now()),
    lastUsedAt: apiKey.lastUsedAt,
  };
}

function expiringSoon(expiresAt: Date | null, now: number): boolean {
  return (
    expiresAt !== null && expiresAt.getTime() > now && expiresAt.getTime() - now <= EXPIRING_SOON_MS
  );
}
