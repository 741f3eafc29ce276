import { Body, Controller, Header, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../common/decorators/public.decorator.js';
import { CACHE_CONTROL_HEADER } from '../common/http/header-names.js';
import { ApiErrors } from '../openapi/api-errors.decorator.js';
import {
  ApiJsonBody,
  ApiPublicRateLimited,
  noStoreResponseHeaders,
} from '../openapi/api-docs.decorators.js';
import { AuthService } from './auth.service.js';
import { LoginResponse } from './dto/login-response.dto.js';
import { LoginDto } from './dto/login.dto.js';

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(private readonly authService: AuthService) {}

  @Public()
  @Post('login')
  @HttpCode(200)
  @Header(CACHE_CONTROL_HEADER, 'no-store')
  @ApiOperation({
    operationId: 'login',
    summary: 'Log in',
    description:
      'Exchanges a username and password for a bearer token valid for one hour. No credential ' +
      'needed; rate limited by client address. Unknown user, wrong password and inactive ' +
      'account all answer 401 INVALID_CREDENTIALS.',
  })
  @ApiJsonBody()
  @ApiPublicRateLimited()
  @ApiErrors({ 401: ['INVALID_CREDENTIALS'], 503: ['SERVICE_UNAVAILABLE'] })
  @ApiOkResponse({
    type: LoginResponse,
    description: 'Logged in',
    headers: noStoreResponseHeaders('token'),
  })
  login(@Body() dto: LoginDto): Promise<LoginResponse> {
    return this.authService.login(dto);
  }
}
