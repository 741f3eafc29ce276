import { PartialType } from '@nestjs/swagger';
import { CreatePetDto } from './create-pet.dto.js';

// skipNullProperties: false keeps `null` from slipping past the required fields;
// the optional ones (age, breed, description) still accept null to clear them.
export class UpdatePetDto extends PartialType(CreatePetDto, { skipNullProperties: false }) {}
