import { ApiProperty } from '@nestjs/swagger';
import { MAX_CURSOR_LENGTH } from '../../common/dto/page-cursor.js';
import { PET_STATUSES, type PetStatus } from '../../pets/pet-status.js';
import { ApiIdProperty, ApiTextProperty, ApiTimestampProperty } from '../../openapi/schemas.js';
import { ADOPTION_STATUSES, type AdoptionStatus } from '../adoption-status.js';

export class AdoptionPetResponse {
  @ApiIdProperty('Pet id')
  id: number;

  @ApiTextProperty(100, 'The pet’s name')
  name: string;

  @ApiProperty({ enum: PET_STATUSES, description: 'The pet’s status now' })
  status: PetStatus;
}

export class AdoptionUserResponse {
  @ApiIdProperty('User id')
  id: number;

  @ApiTextProperty(32, 'Username')
  username: string;
}

export class AdoptionResponse {
  @ApiIdProperty('Adoption id')
  id: number;

  @ApiProperty({ type: AdoptionPetResponse })
  pet: AdoptionPetResponse;

  @ApiProperty({
    type: AdoptionUserResponse,
    required: false,
    description: 'Who adopts; absent once the adopter’s account is deleted',
  })
  adopter?: AdoptionUserResponse;

  @ApiProperty({
    enum: ADOPTION_STATUSES,
    description: 'requested and approved are open: the pet is held (pending)',
  })
  status: AdoptionStatus;

  @ApiTextProperty(1000, 'The adopter’s message; absent when none', { required: false })
  message?: string;

  @ApiTimestampProperty('While open: when the hold ends and the adoption expires', {
    required: false,
  })
  holdExpiresAt?: string;

  @ApiProperty({
    type: AdoptionUserResponse,
    required: false,
    description: 'The staff member who made the last move; absent before one',
  })
  decidedBy?: AdoptionUserResponse;

  @ApiTextProperty(500, 'The last move’s reason; absent when none', { required: false })
  reason?: string;

  @ApiTimestampProperty('When it was requested')
  createdAt: string;

  @ApiTimestampProperty('When it last changed')
  updatedAt: string;
}

export class AdoptionPagination {
  @ApiProperty({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: 100,
    description: 'The page size asked for',
  })
  limit: number;

  @ApiProperty({
    type: 'string',
    required: false,
    maxLength: MAX_CURSOR_LENGTH,
    pattern: '^[A-Za-z0-9_-]+$',
    description: 'Present when another page follows: pass it as `cursor`',
  })
  nextCursor?: string;
}

export class AdoptionListResponse {
  @ApiProperty({ type: [AdoptionResponse], maxItems: 100, description: 'Newest first' })
  adoptions: AdoptionResponse[];

  @ApiProperty({ type: AdoptionPagination })
  pagination: AdoptionPagination;
}
