import { PartialType } from '@nestjs/swagger';
import { CreatePetDto } from './create-pet.dto.js';

// skipNullProperties: false keeps `null` from slipping past the fields that always have a
// value; age, breed and description still accept null to clear them.
export class UpdatePetDto extends PartialType(CreatePetDto, { skipNullProperties: false }) {}
