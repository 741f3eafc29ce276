import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CurrentPrincipal } from '../common/decorators/current-principal.decorator.js';
import { ParseIdPipe } from '../common/pipes/parse-id.pipe.js';
import type { Principal } from '../common/types/principal.js';
import { toApiKeyResponse, type ApiKeyResponse } from './api-key.mapper.js';
import { ApiKeysService } from './api-keys.service.js';
import { BearerOnly } from './bearer-only.decorator.js';
import { CreateApiKeyDto } from './dto/create-api-key.dto.js';

@Controller('api-keys')
@BearerOnly()
export class ApiKeysController {
  constructor(private readonly apiKeysService: ApiKeysService) {}

  @Post()
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() dto: CreateApiKeyDto,
  ): Promise<ApiKeyResponse & { key: string }> {
    const { apiKey, key } = await this.apiKeysService.create(principal.userId, dto);
    return { ...toApiKeyResponse(apiKey), key };
  }

  @Get()
  async list(@CurrentPrincipal() principal: Principal): Promise<{ apiKeys: ApiKeyResponse[] }> {
    const apiKeys = await this.apiKeysService.listOwn(principal.userId);
    return { apiKeys: apiKeys.map(toApiKeyResponse) };
  }

  @Delete(':id')
  @HttpCode(200)
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('id', ParseIdPipe) id: string,
  ): Promise<Record<string, never>> {
    await this.apiKeysService.revoke(principal.userId, id);
    return {};
  }
}
