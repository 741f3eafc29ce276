import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CursorQuery } from '../../common/dto/page-cursor.js';
import { PaginationQueryDto } from '../../common/dto/pagination-query.dto.js';
import { PaginationResponse } from '../../common/dto/pagination-response.dto.js';
import { ApiIdProperty, ApiTimestampProperty, ID_SCHEMA } from '../../openapi/schemas.js';
import { API_KEY_PREFIX_LENGTH, API_KEY_PREFIX_PATTERN } from '../../auth/api-key-format.js';
import {
  PET_CHANGED_FIELDS,
  PET_EVENT_TYPES,
  type PetChangedField,
  type PetEventType,
} from '../pet-events.js';
import { PET_STATUSES, type PetStatus } from '../pet-status.js';

export class PetHistoryQueryDto extends PaginationQueryDto {
  @CursorQuery('pagination.nextCursor of the previous page of this pet, without offset')
  cursor?: string;
}

export class PetEventActorResponse {
  @ApiIdProperty('The user who made the change; absent for a customer reader and for the service', {
    required: false,
  })
  userId?: number;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: API_KEY_PREFIX_LENGTH,
    pattern: API_KEY_PREFIX_PATTERN,
    description: 'The prefix of the API key the change was made with; absent for a bearer token',
  })
  apiKeyPrefix?: string;

  @ApiPropertyOptional({
    type: 'string',
    enum: ['staff', 'customer', 'system'],
    description:
      'Instead of `userId` and `apiKeyPrefix`. For a customer reading the history: the change ' +
      'was made by staff, or by a customer (an adoption’s request or cancel). For every reader: ' +
      '`system`, the service made it by itself (a hold’s expiry, the cancel of the adoptions of ' +
      'an adopter whose account was deleted)',
  })
  role?: 'staff' | 'customer' | 'system';
}

export class PetHistoryEventResponse {
  @ApiProperty({
    type: 'string',
    pattern: '^evt_[0-9a-f]{32}$',
    maxLength: 36,
    description: 'Event id, the same as the `webhook-id` of its deliveries',
  })
  id: string;

  @ApiProperty({ enum: PET_EVENT_TYPES })
  type: PetEventType;

  @ApiTimestampProperty('When the change was made')
  occurredAt: string;

  @ApiProperty({ type: PetEventActorResponse })
  actor: PetEventActorResponse;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...PET_CHANGED_FIELDS] },
    minItems: 1,
    maxItems: PET_CHANGED_FIELDS.length,
    description: 'pet.updated only: the request fields whose value changed (status aside)',
  })
  changedFields?: PetChangedField[];

  @ApiPropertyOptional({ enum: PET_STATUSES, description: 'pet.status_changed only' })
  from?: PetStatus;

  @ApiPropertyOptional({ enum: PET_STATUSES, description: 'pet.status_changed only' })
  to?: PetStatus;

  @ApiPropertyOptional({
    ...ID_SCHEMA,
    description: 'The adoption whose move (or request) changed the status, if one did',
  })
  adoptionId?: number;
}

export class PetHistoryResponse {
  @ApiProperty({ type: [PetHistoryEventResponse], maxItems: 100, description: 'Newest first' })
  events: PetHistoryEventResponse[];

  @ApiProperty({ type: PaginationResponse })
  pagination: PaginationResponse;
}
