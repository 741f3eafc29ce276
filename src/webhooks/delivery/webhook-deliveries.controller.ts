import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../../common/decorators/current-principal.decorator.js';
import { Roles } from '../../common/decorators/roles.decorator.js';
import type { Principal } from '../../common/types/principal.js';
import { ApiErrors } from '../../openapi/api-errors.decorator.js';
import { ApiIdParam, ApiValidatedQuery, NoBody } from '../../openapi/api-docs.decorators.js';
import { ParseIdPipe } from '../../common/pipes/parse-id.pipe.js';
import { BearerOnly } from '../../auth/bearer-only.decorator.js';
import { Idempotent } from '../../idempotency/idempotent.decorator.js';
import {
  ATTEMPT_LOG_LENGTH,
  DeliveryDetailResponse,
  DeliveryListResponse,
  DeliveryResponse,
} from './dto/delivery-response.dto.js';
import { ListDeliveriesQueryDto } from './dto/list-deliveries-query.dto.js';
import { WEBHOOK_OWNER_ROLES } from '../webhook-event-types.js';
import { ownerScopeOf, webhookNotFound } from '../webhooks.service.js';
import { WebhookDeliveriesService, webhookDeliveryNotFound } from './webhook-deliveries.service.js';
import { toDeliveryDetailResponse, toDeliveryResponse } from './webhook-delivery.mapper.js';

// As the subscriptions (WebhooksController): staff, a user only its own subscriptions'
// deliveries (someone else's subscription is 404), bearer token only.
@ApiTags('webhooks')
@BearerOnly()
@Roles(...WEBHOOK_OWNER_ROLES)
@ApiIdParam('webhookId', 'Webhook id')
@ApiErrors({ 404: ['WEBHOOK_NOT_FOUND'] })
@Controller('webhooks/:webhookId/deliveries')
export class WebhookDeliveriesController {
  constructor(private readonly deliveries: WebhookDeliveriesService) {}

  @Get()
  @ApiOperation({
    operationId: 'listWebhookDeliveries',
    summary: 'List a webhook’s deliveries',
    description:
      'Staff, bearer token only (someone else’s webhook, for a user who is not an admin: ' +
      '404). One delivery per event sent to this webhook, newest first, ' +
      'each with its latest attempt.',
  })
  @ApiValidatedQuery()
  @ApiOkResponse({ type: DeliveryListResponse, description: 'One page of deliveries' })
  async list(
    @CurrentPrincipal() caller: Principal,
    @Param('webhookId', new ParseIdPipe(webhookNotFound)) webhookId: number,
    @Query() query: ListDeliveriesQueryDto,
  ): Promise<DeliveryListResponse> {
    const page = await this.deliveries.list(ownerScopeOf(caller), webhookId, query);
    return { deliveries: page.deliveries.map(toDeliveryResponse), pagination: page.pagination };
  }

  @Get(':deliveryId')
  @ApiOperation({
    operationId: 'getWebhookDelivery',
    summary: 'Get a delivery and its attempts',
    description:
      `Staff, bearer token only, as the list. The delivery and its latest ${ATTEMPT_LOG_LENGTH} attempts, ` +
      'newest first.',
  })
  @ApiIdParam('deliveryId', 'Delivery id')
  @ApiErrors({ 404: ['WEBHOOK_DELIVERY_NOT_FOUND'] })
  @ApiOkResponse({ type: DeliveryDetailResponse, description: 'The delivery' })
  async findOne(
    @CurrentPrincipal() caller: Principal,
    @Param('webhookId', new ParseIdPipe(webhookNotFound)) webhookId: number,
    @Param('deliveryId', new ParseIdPipe(webhookDeliveryNotFound)) deliveryId: number,
  ): Promise<DeliveryDetailResponse> {
    const { delivery, attempts } = await this.deliveries.findOne(
      ownerScopeOf(caller),
      webhookId,
      deliveryId,
    );
    return toDeliveryDetailResponse(delivery, attempts);
  }

  @Post(':deliveryId/retry')
  @HttpCode(202)
  @NoBody()
  @Idempotent()
  @ApiOperation({
    operationId: 'retryWebhookDelivery',
    summary: 'Send a delivery again now',
    description:
      'Staff, bearer token only, as the list. Takes no body. The delivery becomes `pending` and due now, ' +
      'whether it succeeded, failed or was waiting for its next attempt; the same event id is ' +
      'sent. A pet’s events still go in order: it waits for that pet’s earlier pending ' +
      'deliveries, and for the webhook to be enabled.',
  })
  @ApiIdParam('deliveryId', 'Delivery id')
  @ApiErrors({ 404: ['WEBHOOK_DELIVERY_NOT_FOUND'] })
  @ApiAcceptedResponse({ type: DeliveryResponse, description: 'The delivery, now pending' })
  async retry(
    @CurrentPrincipal() caller: Principal,
    @Param('webhookId', new ParseIdPipe(webhookNotFound)) webhookId: number,
    @Param('deliveryId', new ParseIdPipe(webhookDeliveryNotFound)) deliveryId: number,
  ): Promise<DeliveryResponse> {
    return toDeliveryResponse(
      await this.deliveries.retry(ownerScopeOf(caller), webhookId, deliveryId),
    );
  }
}
