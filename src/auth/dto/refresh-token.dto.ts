import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';

/**
 * Loose bounds: any other string is a refresh token that does not exist, answered as one
 * (docs/identity.md, Sessions).
 */
export class RefreshTokenDto {
  @ApiProperty({
    type: 'string',
    minLength: 1,
    maxLength: 256,
    description: 'The refresh token of the last login or refresh (`rt_…`)',
  })
  @IsString()
  @Length(1, 256)
  refreshToken: string;
}
