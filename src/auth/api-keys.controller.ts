import {
  Body,
  Controller,
  Delete,
  Get,
  Header,
  HttpCode,
  Param,
  Post,
  Query,
} from '@nestjs/common';
import { AnyRole } from '../common/decorators/roles.decorator.js';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { LargePageQueryDto } from '../common/dto/pagination-query.dto.js';
import { CurrentPrincipal } from '../common/decorators/current-principal.decorator.js';
import { CACHE_CONTROL_HEADER } from '../common/http/header-names.js';
import { ApiErrors } from '../openapi/api-errors.decorator.js';
import {
  ApiIdParam,
  ApiJsonBody,
  ApiValidatedQuery,
  noStoreResponseHeaders,
  OptionalJsonBody,
} from '../openapi/api-docs.decorators.js';
import { EmptyResponse } from '../openapi/empty-response.dto.js';
import { ParseIdPipe } from '../common/pipes/parse-id.pipe.js';
import type { Principal } from '../common/types/principal.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import { toApiKeyResponse } from './api-key.mapper.js';
import { apiKeyNotFound, ApiKeysService } from './api-keys.service.js';
import { BearerOnly } from './bearer-only.decorator.js';
import { ApiKeyListResponse, CreatedApiKeyResponse } from './dto/api-key-response.dto.js';
import { CreateApiKeyDto } from './dto/create-api-key.dto.js';
import { RollApiKeyDto } from './dto/roll-api-key.dto.js';

@ApiTags('api-keys')
@Controller('api-keys')
@BearerOnly()
@AnyRole()
export class ApiKeysController {
  constructor(private readonly apiKeysService: ApiKeysService) {}

  @Post()
  // Set before the interceptors run, so that a replay carries it too.
  @Header(CACHE_CONTROL_HEADER, 'no-store')
  // The key is never stored: a replay answers the key's record without it.
  @Idempotent({ secretFields: ['key'] })
  @ApiOperation({
    operationId: 'createApiKey',
    summary: 'Create an API key',
    description:
      'Bearer token only. The full key is in this response only; it acts as its owner with ' +
      'the owner’s role, limited to `scopes` when given (each checked against that role at ' +
      'every request). A scope the role does not allow is 400 on scopes. A mode the deployment refuses (API_KEY_MODES) is 400 on mode. A ' +
      'user holds at most API_KEYS_PER_USER keys (default 10): one more is 409 ' +
      'API_KEY_LIMIT_REACHED with `details.limit`.',
  })
  @ApiJsonBody()
  @ApiErrors({ 409: ['API_KEY_LIMIT_REACHED'] })
  @ApiCreatedResponse({
    type: CreatedApiKeyResponse,
    description: 'The new key, in full',
    headers: noStoreResponseHeaders('key'),
  })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: CreateApiKeyDto,
  ): Promise<CreatedApiKeyResponse> {
    const { apiKey, key } = await this.apiKeysService.create(principal.userId, principal.role, dto);
    return { ...toApiKeyResponse(apiKey, principal.role), key };
  }

  @Post(':id/roll')
  @Header(CACHE_CONTROL_HEADER, 'no-store')
  @Idempotent({ secretFields: ['key'] })
  @ApiOperation({
    operationId: 'rollApiKey',
    summary: 'Roll an API key',
    description:
      'Bearer token only. A new key of the same name, mode and scopes, in full in this ' +
      'response only; the old key keeps working for `expiresInHours` (default 24, 0: it ' +
      'stops at once), never longer than it would have. The new key lives as long as the old ' +
      'one was made to, from now. Someone else’s key is 404; a roll that leaves the user ' +
      'holding more than API_KEYS_PER_USER working keys is 409 API_KEY_LIMIT_REACHED.',
  })
  @ApiIdParam('id', 'API key id')
  @OptionalJsonBody(RollApiKeyDto)
  @ApiErrors({ 404: ['API_KEY_NOT_FOUND'], 409: ['API_KEY_LIMIT_REACHED'] })
  @ApiCreatedResponse({
    type: CreatedApiKeyResponse,
    description: 'The new key, in full',
    headers: noStoreResponseHeaders('key'),
  })
  async roll(
    @CurrentPrincipal() principal: Principal,
    @Param('id', new ParseIdPipe(apiKeyNotFound)) id: number,
    @Body() dto: RollApiKeyDto,
  ): Promise<CreatedApiKeyResponse> {
    const { apiKey, key } = await this.apiKeysService.roll(principal.userId, id, dto);
    return { ...toApiKeyResponse(apiKey, principal.role), key };
  }

  @Get()
  @ApiOperation({
    operationId: 'listApiKeys',
    summary: 'List your API keys',
    description:
      'Bearer token only. The caller’s own keys, newest first, without the key; paged as ' +
      'GET /v1/users is.',
  })
  @ApiValidatedQuery()
  @ApiOkResponse({ type: ApiKeyListResponse, description: 'One page of the caller’s keys' })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: LargePageQueryDto,
  ): Promise<ApiKeyListResponse> {
    const page = await this.apiKeysService.listOwn(principal.userId, query);
    return {
      apiKeys: page.apiKeys.map((apiKey) => toApiKeyResponse(apiKey, principal.role)),
      pagination: page.pagination,
    };
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deleteApiKey',
    summary: 'Revoke an API key',
    description:
      'Bearer token only. The key stops working at once. Someone else’s key is 404, as a ' +
      'key that does not exist.',
  })
  @ApiIdParam('id', 'API key id')
  @ApiErrors({ 404: ['API_KEY_NOT_FOUND'] })
  @ApiOkResponse({ type: EmptyResponse, description: 'Revoked; the body is `{}`' })
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('id', new ParseIdPipe(apiKeyNotFound)) id: number,
  ): Promise<EmptyResponse> {
    await this.apiKeysService.revoke(principal.userId, id);
    return {};
  }
}
