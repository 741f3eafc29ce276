import { IsEmail, IsIn, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { Trim } from '../../common/dto/transforms.js';
import { ROLES, type Role } from '../../common/types/principal.js';
import { USER_STATUSES, type UserStatus } from '../user-status.js';
import { USERNAME_PATTERN } from '../username.js';

export class CreateUserDto {
  @IsString()
  @Matches(USERNAME_PATTERN, { message: 'username must be 3 to 32 of A-Z a-z 0-9 _ . -' })
  username: string;

  @Trim()
  @IsString()
  @MaxLength(254)
  @IsEmail()
  email: string;

  @IsString()
  @Length(8, 128)
  password: string;

  @IsOptional()
  @IsString()
  @MaxLength(100)
  firstName?: string;

  @IsOptional()
  @IsString()
  @MaxLength(100)
  lastName?: string;

  @IsOptional()
  @IsString()
  @MaxLength(32)
  phone?: string;

  /** Admin only (the only role that may call create; on update see user-access.ts). */
  @IsOptional()
  @IsIn(ROLES)
  role?: Role;

  @IsOptional()
  @IsIn(USER_STATUSES)
  userStatus?: UserStatus;
}
