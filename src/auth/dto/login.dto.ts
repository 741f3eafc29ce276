import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';

/** Loose bounds: a login reports a wrong pair, not which rule a stored value follows. */
export class LoginDto {
  @ApiProperty({ type: 'string', minLength: 1, maxLength: 254, description: 'Any case' })
  @IsString()
  @Length(1, 254)
  username: string;

  @ApiProperty({ type: 'string', format: 'password', minLength: 1, maxLength: 1024 })
  @IsString()
  @Length(1, 1024)
  password: string;
}
