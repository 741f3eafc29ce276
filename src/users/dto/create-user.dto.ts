import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsEmail,
  IsIn,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateBy,
  ValidateIf,
} from 'class-validator';
import { IsOptionalNotNull, OptionalText } from '../../common/dto/optional.js';
import { Trim } from '../../common/dto/transforms.js';
import { ROLES, type Role } from '../../common/types/principal.js';
import { USER_STATUS_SCHEMA, USER_STATUSES, type UserStatus } from '../user-status.js';
import { USERNAME_PATTERN } from '../../common/dto/username.js';

export class CreateUserDto {
  @ApiProperty({
    type: 'string',
    minLength: 3,
    maxLength: 32,
    pattern: USERNAME_PATTERN.source,
    description: 'Unique regardless of case',
  })
  @IsString()
  @Matches(USERNAME_PATTERN, { message: 'username must be 3 to 32 of A-Z a-z 0-9 _ . -' })
  username: string;

  @ApiProperty({
    type: 'string',
    format: 'email',
    maxLength: 254,
    description: 'Trimmed; unique regardless of case',
  })
  @Trim()
  @IsString()
  @MaxLength(254)
  @IsEmail()
  email: string;

  @ApiPropertyOptional({
    type: 'string',
    format: 'password',
    minLength: 8,
    maxLength: 128,
    description: 'Required, unless `invite` is true: then refused (the person chooses it)',
  })
  // Validated unless an invitation leaves it out; sent with one, refused by notWithInvite.
  @ValidateIf((dto: CreateUserDto) => dto.invite !== true || dto.password !== undefined)
  @ValidateBy({
    name: 'notWithInvite',
    validator: {
      validate: (value, args) =>
        (args?.object as CreateUserDto).invite !== true || value === undefined,
      defaultMessage: () => 'password must not be sent with invite: true',
    },
  })
  @IsString()
  @Length(8, 128)
  password?: string;

  @OptionalText(100)
  firstName?: string | null;

  @OptionalText(100)
  lastName?: string | null;

  @OptionalText(32)
  phone?: string | null;

  /**
   * The person chooses its password through a mailed link: the account is created with
   * userStatus 2 and activated by `POST /auth/reset-password` (docs/identity.md).
   */
  @ApiPropertyOptional({
    type: 'boolean',
    default: false,
    description:
      'true: create the account without `password`, with userStatus 2, and mail the person ' +
      'a link (valid 7 days) to choose one, which activates it',
  })
  @IsOptionalNotNull()
  @IsBoolean()
  invite?: boolean;

  /** Admin only (the only role that may call create; on update see user-access.ts). */
  @ApiPropertyOptional({ enum: ROLES, default: 'user', description: 'Set by an admin only' })
  @IsOptionalNotNull()
  @IsIn(ROLES)
  role?: Role;

  @ApiPropertyOptional({
    ...USER_STATUS_SCHEMA,
    default: 0,
    description: USER_STATUS_SCHEMA.description + '; set by an admin only',
  })
  @IsOptionalNotNull()
  @IsIn(USER_STATUSES)
  userStatus?: UserStatus;
}
