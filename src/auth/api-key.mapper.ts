import type { ApiKeyMode } from './api-key-format.js';
import type { ApiKey } from './api-key.entity.js';

export interface ApiKeyResponse {
  id: number;
  name: string;
  mode: ApiKeyMode;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

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
