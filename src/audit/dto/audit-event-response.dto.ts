import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { API_KEY_PREFIX_LENGTH, API_KEY_PREFIX_PATTERN } from '../../auth/api-key-format.js';
import { USER_AGENT_MAX_LENGTH } from '../../common/http/request-origin.js';
import { ApiIdProperty, ApiTimestampProperty } from '../../openapi/schemas.js';
import {
  AUDIT_ACTIONS,
  AUDIT_CREDENTIALS,
  AUDIT_OUTCOMES,
  AUDIT_TARGET_TYPES,
  type AuditAction,
  type AuditChanges,
  type AuditCredential,
  type AuditOutcome,
  type AuditTargetType,
} from '../audit-actions.js';

export class AuditActorResponse {
  @ApiIdProperty('The user who acted; absent for a failed login', { required: false })
  userId?: number;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: 200,
    description: "The user's name at the time; for a failed login, the username tried",
  })
  username?: string;

  @ApiProperty({
    enum: AUDIT_CREDENTIALS,
    description: 'How the actor authenticated: bearer token, API key, or none (a login)',
  })
  credential: AuditCredential;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: API_KEY_PREFIX_LENGTH,
    pattern: API_KEY_PREFIX_PATTERN,
    description: "The API key's display prefix, for credential `api-key`",
  })
  apiKeyPrefix?: string;
}

export class AuditTargetResponse {
  @ApiProperty({ enum: AUDIT_TARGET_TYPES })
  type: AuditTargetType;

  @ApiIdProperty('Its id')
  id: number;
}

const CHANGES_SCHEMA: ApiPropertyOptions = {
  type: 'object',
  description:
    'The fields the action changed, each `{ from, to }` (null where there was no value); ' +
    'passwords, tokens, keys and secrets appear only as `"[changed]"`',
  additionalProperties: {
    type: 'object',
    properties: { from: {}, to: {} },
    required: ['from', 'to'],
    additionalProperties: false,
  },
};

export class AuditEventResponse {
  @ApiIdProperty('Entry id; later entries have larger ids')
  id: number;

  @ApiTimestampProperty('When the change was made')
  occurredAt: string;

  @ApiProperty({ enum: AUDIT_ACTIONS })
  action: AuditAction;

  @ApiProperty({ enum: AUDIT_OUTCOMES })
  outcome: AuditOutcome;

  @ApiProperty({ type: AuditActorResponse })
  actor: AuditActorResponse;

  @ApiPropertyOptional({ type: AuditTargetResponse, description: 'What the action was about' })
  target?: AuditTargetResponse;

  @ApiPropertyOptional(CHANGES_SCHEMA)
  changes?: AuditChanges;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: 45,
    description: "The client's address; absent only for entries made outside a request",
  })
  ip?: string;

  @ApiPropertyOptional({ type: 'string', maxLength: USER_AGENT_MAX_LENGTH })
  userAgent?: string;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: 128,
    description:
      "The service's own id of the request that made it (its X-Request-Id when the caller sent " +
      'none); absent only for entries made outside a request',
  })
  requestId?: string;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: 128,
    description: "The caller's X-Request-Id, when it sent a well-formed one",
  })
  clientRequestId?: string;
}

export class AuditPaginationResponse {
  @ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum: 100 })
  limit: number;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: 512,
    pattern: '^[A-Za-z0-9_-]+$',
    description: 'Opaque cursor of the next (older) page; absent on the last page',
  })
  nextCursor?: string;
}

export class AuditEventListResponse {
  @ApiProperty({ type: [AuditEventResponse], maxItems: 100, description: 'Newest first' })
  auditEvents: AuditEventResponse[];

  @ApiProperty({ type: AuditPaginationResponse })
  pagination: AuditPaginationResponse;
}
