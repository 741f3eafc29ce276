import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Length } from 'class-validator';
import { IsOptionalNotNull } from '../../common/dto/optional.js';

export const REFRESH_TOKEN_TRANSPORTS = ['body', 'cookie'] as const;
export type RefreshTokenTransport = (typeof REFRESH_TOKEN_TRANSPORTS)[number];

/** `refreshTokenIn` of the calls that start a session: login and its second step. */
export const RefreshTokenIn = () =>
  applyDecorators(
    ApiPropertyOptional({
      type: 'string',
      enum: REFRESH_TOKEN_TRANSPORTS,
      default: 'body',
      description:
        'Where the refresh token goes. `cookie` (the web console): an HttpOnly cookie scoped to ' +
        'POST /v1/auth/refresh and /logout, left out of the body; the request must then carry ' +
        'the service’s own `Origin` (else 403 ORIGIN_NOT_ALLOWED)',
    }),
    IsOptionalNotNull(),
    IsIn(REFRESH_TOKEN_TRANSPORTS),
  );

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

  @RefreshTokenIn()
  refreshTokenIn?: RefreshTokenTransport;
}
