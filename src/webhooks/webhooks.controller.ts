import {
  Body,
  Controller,
  Delete,
  Get,
  Header,
  HttpCode,
  Param,
  Post,
  Put,
  Query,
} from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../common/decorators/current-principal.decorator.js';
import { Roles } from '../common/decorators/roles.decorator.js';
import type { Principal } from '../common/types/principal.js';
import { LargePageQueryDto } from '../common/dto/pagination-query.dto.js';
import { CACHE_CONTROL_HEADER } from '../common/http/header-names.js';
import { ApiErrors } from '../openapi/api-errors.decorator.js';
import {
  ApiIdParam,
  ApiJsonBody,
  ApiValidatedQuery,
  NoBody,
  noStoreResponseHeaders,
} from '../openapi/api-docs.decorators.js';
import { EmptyResponse } from '../openapi/empty-response.dto.js';
import { NonEmptyBodyPipe } from '../common/pipes/non-empty-body.pipe.js';
import { ParseIdPipe } from '../common/pipes/parse-id.pipe.js';
import { BearerOnly } from '../auth/bearer-only.decorator.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import { CreateWebhookDto } from './dto/create-webhook.dto.js';
import { UpdateWebhookDto } from './dto/update-webhook.dto.js';
import {
  WebhookListResponse,
  WebhookResponse,
  WebhookWithSecretResponse,
} from './dto/webhook-response.dto.js';
import { WEBHOOK_OWNER_ROLES } from './webhook-event-types.js';
import { toWebhookResponse } from './webhook.mapper.js';
import { webhookNotFound, WebhooksService } from './webhooks.service.js';

const URL_RULES =
  'The URL must be absolute http or https without user:password, and its host must ' +
  'resolve only to public addresses (loopback and private ones too when ' +
  'WEBHOOKS_ALLOW_PRIVATE_ADDRESSES is set; link-local and cloud metadata addresses never; ' +
  'IPv6 embedding an IPv4 address, ::ffff:0:0/96 or ::/96, is judged as that address): ' +
  'else 400 VALIDATION_ERROR on url, whose message names the rule, never the address.';

// Staff: a user manages its own subscriptions, an admin every one (someone else's is 404 to a
// user). Bearer token only, reading included, as /api-keys: a leaked key must not be able to
// point deliveries elsewhere, sign them, or read what receivers answered.
@ApiTags('webhooks')
@BearerOnly()
@Roles(...WEBHOOK_OWNER_ROLES)
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooksService: WebhooksService) {}

  @Post()
  @Header(CACHE_CONTROL_HEADER, 'no-store')
  // The secret is stored for signing, but a replay does not show it again.
  @Idempotent({ secretFields: ['secret'] })
  @ApiOperation({
    operationId: 'createWebhook',
    summary: 'Subscribe a URL to pet and adoption events',
    description:
      `Staff, bearer token only; the caller owns the subscription. ${URL_RULES} An account ` +
      'owns at most WEBHOOKS_PER_USER subscriptions (default 10): one more is 409 ' +
      'WEBHOOK_LIMIT_REACHED. The signing secret is in this response only. Events that happen ' +
      'after the creation are delivered, signed per Standard Webhooks, while the owner may ' +
      'read them (an active staff account) and its filters match.',
  })
  @ApiJsonBody()
  @ApiErrors({ 409: ['WEBHOOK_LIMIT_REACHED'] })
  @ApiCreatedResponse({
    type: WebhookWithSecretResponse,
    description: 'The new subscription and its signing secret',
    headers: noStoreResponseHeaders('secret'),
  })
  async create(
    @CurrentPrincipal() caller: Principal,
    @Body() dto: CreateWebhookDto,
  ): Promise<WebhookWithSecretResponse> {
    const subscription = await this.webhooksService.create(caller, dto);
    return { ...toWebhookResponse(subscription), secret: subscription.secret };
  }

  @Get()
  @ApiOperation({
    operationId: 'listWebhooks',
    summary: 'List webhook subscriptions',
    description:
      'Staff, bearer token only. A user’s own subscriptions, an admin’s every one, with its ' +
      'owner; newest first, paged as GET /v1/users is. Never the secrets.',
  })
  @ApiValidatedQuery()
  @ApiOkResponse({ type: WebhookListResponse, description: 'One page of subscriptions' })
  async list(
    @CurrentPrincipal() caller: Principal,
    @Query() query: LargePageQueryDto,
  ): Promise<WebhookListResponse> {
    const page = await this.webhooksService.list(caller, query);
    return {
      webhooks: page.subscriptions.map((s) => toWebhookResponse(s)),
      pagination: page.pagination,
    };
  }

  @Get(':webhookId')
  @ApiOperation({
    operationId: 'getWebhook',
    summary: 'Get a webhook subscription',
    description:
      'Staff, bearer token only. Never the secrets. Someone else’s, for a user who is not an ' +
      'admin: 404.',
  })
  @ApiIdParam('webhookId', 'Webhook id')
  @ApiErrors({ 404: ['WEBHOOK_NOT_FOUND'] })
  @ApiOkResponse({ type: WebhookResponse, description: 'The subscription' })
  async findOne(
    @CurrentPrincipal() caller: Principal,
    @Param('webhookId', new ParseIdPipe(webhookNotFound)) id: number,
  ): Promise<WebhookResponse> {
    return toWebhookResponse(await this.webhooksService.findOne(caller, id));
  }

  @Put(':webhookId')
  @ApiOperation({
    operationId: 'updateWebhook',
    summary: 'Update a webhook subscription',
    description:
      `Staff, bearer token only (someone else’s, for a user who is not an admin: 404). Any ` +
      `non-empty subset of the fields. ${URL_RULES} filters replaces the filters as a whole ` +
      '(null clears them). Setting enabled to true clears disabledReason and resumes pending ' +
      'deliveries.',
  })
  @ApiIdParam('webhookId', 'Webhook id')
  @ApiJsonBody()
  @ApiErrors({ 404: ['WEBHOOK_NOT_FOUND'] })
  @ApiOkResponse({ type: WebhookResponse, description: 'The updated subscription' })
  async update(
    @CurrentPrincipal() caller: Principal,
    @Param('webhookId', new ParseIdPipe(webhookNotFound)) id: number,
    @Body(NonEmptyBodyPipe) dto: UpdateWebhookDto,
  ): Promise<WebhookResponse> {
    return toWebhookResponse(await this.webhooksService.update(caller, id, dto));
  }

  @Delete(':webhookId')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook subscription',
    description:
      'Staff, bearer token only (someone else’s, for a user who is not an admin: 404). Its ' +
      'deliveries, pending or not, go with it.',
  })
  @ApiIdParam('webhookId', 'Webhook id')
  @ApiErrors({ 404: ['WEBHOOK_NOT_FOUND'] })
  @ApiOkResponse({ type: EmptyResponse, description: 'Deleted; the body is `{}`' })
  async remove(
    @CurrentPrincipal() caller: Principal,
    @Param('webhookId', new ParseIdPipe(webhookNotFound)) id: number,
  ): Promise<EmptyResponse> {
    await this.webhooksService.remove(caller, id);
    return {};
  }

  @Post(':webhookId/rotate-secret')
  @HttpCode(200)
  @Header(CACHE_CONTROL_HEADER, 'no-store')
  @NoBody()
  @Idempotent({ secretFields: ['secret'] })
  @ApiOperation({
    operationId: 'rotateWebhookSecret',
    summary: 'Rotate a webhook’s signing secret',
    description:
      'Staff, bearer token only (someone else’s, for a user who is not an admin: 404). Takes ' +
      'no body. The new secret is in this response only; for ' +
      '24 hours (until previousSecretExpiresAt) deliveries carry a second signature made with ' +
      'the old one, so that receivers can switch without losing any.',
  })
  @ApiIdParam('webhookId', 'Webhook id')
  @ApiErrors({ 404: ['WEBHOOK_NOT_FOUND'] })
  @ApiOkResponse({
    type: WebhookWithSecretResponse,
    description: 'The subscription and its new signing secret',
    headers: noStoreResponseHeaders('secret'),
  })
  async rotateSecret(
    @CurrentPrincipal() caller: Principal,
    @Param('webhookId', new ParseIdPipe(webhookNotFound)) id: number,
  ): Promise<WebhookWithSecretResponse> {
    const subscription = await this.webhooksService.rotateSecret(caller, id);
    return { ...toWebhookResponse(subscription), secret: subscription.secret };
  }
}
