import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { IsOptionalNotNull } from '../../common/dto/optional.js';

/**
 * Loose bounds: any other string is a refresh token that does not exist, answered as one
 * (docs/identity.md, Sessions). Left out, the console's cookie carries it; with neither, the
 * field is required (AuthController).
 */
export class RefreshTokenDto {
  @ApiPropertyOptional({
    type: 'string',
    minLength: 1,
    maxLength: 256,
    description:
      'The refresh token of the last login or refresh (`rt_…`). Required, unless the request ' +
      'carries the web console’s refresh cookie (login with `refreshTokenIn: cookie`)',
  })
  @IsOptionalNotNull()
  @IsString()
  @Length(1, 256)
  refreshToken?: string;
}
