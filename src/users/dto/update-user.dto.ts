import { ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { IsOptionalNotNull } from '../../common/dto/optional.js';
import { CreateUserDto } from './create-user.dto.js';

// skipNullProperties: false keeps `null` from slipping past the fields that always have a
// value; firstName, lastName and phone still accept null to clear them.
// `invite` is for creation only.
export class UpdateUserDto extends PartialType(OmitType(CreateUserDto, ['invite']), {
  skipNullProperties: false,
}) {
  /** Checked, never stored, logged or returned (see user-access.ts for when it is taken). */
  @ApiPropertyOptional({
    type: 'string',
    format: 'password',
    minLength: 1,
    maxLength: 1024,
    writeOnly: true,
    description:
      'Your current password: required when you change your own password, email or ' +
      'username (wrong: 403 INVALID_CURRENT_PASSWORD, which counts toward the login ' +
      'lockout); refused with 400 on any other change',
  })
  @IsOptionalNotNull()
  @IsString()
  @Length(1, 1024)
  currentPassword?: string;
}
