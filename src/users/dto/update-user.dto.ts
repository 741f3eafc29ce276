import { PartialType } from '@nestjs/swagger';
import { CreateUserDto } from './create-user.dto.js';

// skipNullProperties: false keeps `null` from slipping past the fields that always have a
// value; firstName, lastName and phone still accept null to clear them.
export class UpdateUserDto extends PartialType(CreateUserDto, { skipNullProperties: false }) {}
