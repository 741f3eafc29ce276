import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CategoryResponse } from '../../categories/dto/category-response.dto.js';
import { MAX_PHOTO_URLS } from '../../common/contract-limits.js';
import { PaginationResponse } from '../../common/dto/pagination-response.dto.js';
import {
  ApiIdProperty,
  ApiTextProperty,
  ApiTimestampProperty,
  URL_SCHEMA,
} from '../../openapi/schemas.js';
import { PET_STATUSES, type PetStatus } from '../pet-status.js';
import { MAX_TAGS } from './create-pet.dto.js';

export class PetAdoptionResponse {
  @ApiIdProperty('Adoption id')
  id: number;

  @ApiProperty({ type: 'string', enum: ['requested', 'approved'], description: 'An open status' })
  status: string;

  @ApiTimestampProperty('When the hold ends', { required: false })
  holdExpiresAt?: string;
}

class TagResponse {
  @ApiIdProperty('Tag id')
  id: number;

  @ApiTextProperty(50, 'Tag name', { minLength: 1 })
  name: string;
}

export class PetResponse {
  @ApiIdProperty('Pet id')
  id: number;

  @ApiTextProperty(100, 'Pet name', { minLength: 1 })
  name: string;

  @ApiProperty({ type: CategoryResponse })
  category: CategoryResponse;

  @ApiProperty({
    type: 'array',
    items: URL_SCHEMA,
    maxItems: MAX_PHOTO_URLS,
    description: 'Photo URLs, uploaded images included',
  })
  photoUrls: string[];

  @ApiProperty({ type: [TagResponse], maxItems: MAX_TAGS, description: 'Sorted by name' })
  tags: TagResponse[];

  @ApiProperty({ enum: PET_STATUSES })
  status: PetStatus;

  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 0,
    maximum: 200,
    description: 'Age in years; absent when not set',
  })
  age?: number;

  @ApiTextProperty(100, 'Breed; absent when not set', { required: false })
  breed?: string;

  @ApiTextProperty(5000, 'Description; absent when not set', { required: false })
  description?: string;

  @ApiTextProperty(100, 'The shop’s own id for the pet; absent when not set', {
    required: false,
    minLength: 1,
  })
  externalId?: string;

  @ApiTimestampProperty('Creation time; never changes')
  createdAt: string;

  @ApiTimestampProperty('Refreshed on every successful update')
  updatedAt: string;

  @ApiPropertyOptional({
    type: PetAdoptionResponse,
    description: 'GET /pets/{petId} only: the pet’s open adoption, while it has one',
  })
  adoption?: PetAdoptionResponse;
}

export class PetListResponse {
  @ApiProperty({ type: [PetResponse], maxItems: 100, description: 'Newest first' })
  pets: PetResponse[];

  @ApiProperty({ type: PaginationResponse })
  pagination: PaginationResponse;
}
