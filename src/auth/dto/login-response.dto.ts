import { ApiProperty } from '@nestjs/swagger';
import { ApiIdProperty, ApiTextProperty } from '../../openapi/schemas.js';
import { USERNAME_PATTERN } from '../../common/dto/username.js';
import {
  REFRESH_TOKEN_TTL_MAX_SECONDS,
  REFRESH_TOKEN_TTL_MIN_SECONDS,
} from '../../config/env.schema.js';
import { TOKEN_TTL_SECONDS } from '../strategies/jwt.strategy.js';

export class LoginUser {
  @ApiIdProperty('User id')
  id: number;

  @ApiTextProperty(32, 'Username', { pattern: USERNAME_PATTERN.source })
  username: string;

  @ApiTextProperty(254, 'Email address', { format: 'email' })
  email: string;
}

export class LoginResponse {
  @ApiTextProperty(4096, 'HS256 JWT; send it as `Authorization: Bearer <token>`', {
    pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$',
  })
  token: string;

  @ApiProperty({ type: LoginUser })
  user: LoginUser;

  @ApiProperty({
    type: 'integer',
    format: 'int32',
    enum: [TOKEN_TTL_SECONDS],
    minimum: TOKEN_TTL_SECONDS,
    maximum: TOKEN_TTL_SECONDS,
    description: 'Token lifetime in seconds',
  })
  expiresIn: number;

  @ApiTextProperty(
    46,
    'Opaque refresh token: spend it once with POST /v1/auth/refresh for a new token and ' +
      'refresh token; presenting it again revokes the session. Left out when it went into ' +
      'the web console’s cookie (`refreshTokenIn: cookie`, or a refresh through the cookie)',
    { pattern: '^rt_[A-Za-z0-9_-]{43}$', required: false },
  )
  refreshToken?: string;

  @ApiProperty({
    type: 'integer',
    format: 'int32',
    minimum: REFRESH_TOKEN_TTL_MIN_SECONDS,
    maximum: REFRESH_TOKEN_TTL_MAX_SECONDS,
    description:
      'Refresh token lifetime in seconds (REFRESH_TOKEN_TTL_SECONDS, default 30 days), renewed ' +
      'by each refresh',
  })
  refreshExpiresIn: number;
}
