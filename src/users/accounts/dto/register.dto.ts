import { ApiProperty, PickType } from '@nestjs/swagger';
import { CreateUserDto } from '../../dto/create-user.dto.js';

/** The rules of POST /users for the fields a person signing up gives. */
export class RegisterDto extends PickType(CreateUserDto, [
  'username',
  'email',
  'password',
  'firstName',
  'lastName',
  'phone',
]) {
  // Required here: only an admin's invitation goes without.
  @ApiProperty({ type: 'string', format: 'password', minLength: 8, maxLength: 128 })
  override password: string;
}
