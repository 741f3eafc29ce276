import { ApiProperty, PickType } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { CreateUserDto } from '../../dto/create-user.dto.js';

/**
 * Loose bounds: any other string is a token that does not exist, answered as one
 * (400 INVALID_TOKEN_VALUE), so that a token cannot be probed.
 */
export class AccountTokenDto {
  @ApiProperty({
    type: 'string',
    minLength: 1,
    maxLength: 256,
    description: 'The token of the mailed link (`?token=…`)',
  })
  @IsString()
  @Length(1, 256)
  token: string;
}

/** The new password, under the rules of POST /users. */
export class ResetPasswordDto extends PickType(CreateUserDto, ['password']) {
  @ApiProperty({ type: 'string', format: 'password', minLength: 8, maxLength: 128 })
  override password: string;

  @ApiProperty({
    type: 'string',
    minLength: 1,
    maxLength: 256,
    description: 'The token of the mailed link (`?token=…`)',
  })
  @IsString()
  @Length(1, 256)
  token: string;
}

/** An address to mail, under the rules of POST /users. */
export class EmailDto extends PickType(CreateUserDto, ['email']) {}

export class MessageResponse {
  @ApiProperty({ type: 'string', maxLength: 200, description: 'What happens next, in a sentence' })
  message: string;
}
