import { ApiProperty } from '@nestjs/swagger';
import { PaginationResponse } from '../../common/dto/pagination-response.dto.js';
import {
  ApiIdProperty,
  ApiTextProperty,
  ApiTimestampProperty,
  TIMESTAMP_SCHEMA,
} from '../../openapi/schemas.js';
import { API_KEY_MODES, type ApiKeyMode } from '../../common/types/api-key-mode.js';
import { API_KEY_SCOPES, type ApiKeyScope } from '../../common/types/api-key-scope.js';
import { API_KEY_PREFIX_LENGTH, API_KEY_PREFIX_PATTERN } from '../api-key-format.js';

/** An API key without its hash, and without the key itself (shown once, at creation). */
export class ApiKeyResponse {
  @ApiIdProperty('API key id')
  id: number;

  @ApiTextProperty(100, 'Name given at creation', { minLength: 1 })
  name: string;

  @ApiProperty({ enum: API_KEY_MODES })
  mode: ApiKeyMode;

  @ApiTextProperty(
    API_KEY_PREFIX_LENGTH,
    `The first ${API_KEY_PREFIX_LENGTH} characters of the key, to tell keys apart`,
    {
      pattern: API_KEY_PREFIX_PATTERN,
    },
  )
  prefix: string;

  @ApiProperty({
    enum: API_KEY_SCOPES,
    isArray: true,
    maxItems: API_KEY_SCOPES.length,
    description:
      'What the key may do now: the scopes it was given that its owner’s role still allows ' +
      '(all of the role’s, for a key made without a list)',
  })
  scopes: ApiKeyScope[];

  @ApiTimestampProperty('Creation time')
  createdAt: Date;

  @ApiTimestampProperty('When the key stops working; absent when it never does', {
    required: false,
  })
  expiresAt?: Date;

  @ApiProperty({
    type: 'boolean',
    description: 'true when the key stops working within the next 7 days (and has not yet)',
  })
  expiringSoon: boolean;

  @ApiProperty({
    ...TIMESTAMP_SCHEMA,
    nullable: true,
    description: 'Last use, updated at most once a minute; null when never used',
  })
  lastUsedAt: Date | null;
}

export class CreatedApiKeyResponse extends ApiKeyResponse {
  @ApiTextProperty(
    46,
    'The full key: shown in this response only, store it now. Never stored, so absent ' +
      'from a replay (`Idempotent-Replayed: true`): revoke that key and create another if ' +
      'the first response was lost.',
    { pattern: '^pk_(live|test)_[0-9A-Za-z]{38}$', required: false },
  )
  key?: string;
}

export class ApiKeyListResponse {
  @ApiProperty({
    type: [ApiKeyResponse],
    maxItems: 100,
    description: 'The caller’s keys, newest first',
  })
  apiKeys: ApiKeyResponse[];

  @ApiProperty({ type: PaginationResponse })
  pagination: PaginationResponse;
}
