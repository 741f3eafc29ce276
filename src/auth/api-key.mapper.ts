import type { ApiKey } from './api-key.entity.js';
import { ApiKeyResponse } from './dto/api-key-response.dto.js';

/** Without the hash, and without the key, which only the creation response carries. */
export function toApiKeyResponse(apiKey: ApiKey): ApiKeyResponse {
  return {
    id: apiKey.id,
    name: apiKey.name,
    mode: apiKey.mode,
    prefix: apiKey.prefix,
    createdAt: apiKey.createdAt,
    lastUsedAt: apiKey.lastUsedAt,
  };
}
