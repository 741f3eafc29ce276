import { ApiProperty } from '@nestjs/swagger';
import { PetResponse } from '../../pets/dto/pet-response.dto.js';
import { PET_STATUSES, type PetStatus } from '../../pets/pet-status.js';

/** `data` of a `pet.status_changed` delivery: the pet after the move, and the move. */
export class PetStatusChangedData extends PetResponse {
  @ApiProperty({ enum: PET_STATUSES, description: 'The status before the move' })
  from: PetStatus;

  @ApiProperty({ enum: PET_STATUSES, description: 'The status after the move (= status)' })
  to: PetStatus;
}
