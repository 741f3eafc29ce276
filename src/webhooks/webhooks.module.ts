import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { webhookEventsPart } from './webhook-events.openapi.js';
import { WebhookSubscription } from './webhook-subscription.entity.js';
import { WebhookDelivery } from './delivery/webhook-delivery.entity.js';
import { WebhookDeliveryAttempt } from './delivery/webhook-delivery-attempt.entity.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { addDocumentPart } from '../openapi/document-parts.js';
import { PetsModule } from '../pets/pets.module.js';
import { UsersModule } from '../users/users.module.js';
import { WebhookDeliveriesController } from './delivery/webhook-deliveries.controller.js';
import { WebhookDeliveriesRepository } from './delivery/webhook-deliveries.repository.js';
import { WebhookDeliveriesService } from './delivery/webhook-deliveries.service.js';
import { WebhookDeliveryJobs } from './delivery/webhook-delivery-jobs.js';
import { WebhookFanOut } from './delivery/webhook-fan-out.js';
import { WebhookHttpClient } from './outbound/webhook-http-client.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksRepository } from './webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';

// No route describes the events POSTed to subscribers: the API description takes them from here.
addDocumentPart('webhooks', webhookEventsPart);

/**
 * Subscriptions (this folder), delivery of the pets' events to them (delivery/: fan-out,
 * the delivery jobs, signing, the delivery log) and the guarded HTTP client (outbound/).
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([WebhookSubscription, WebhookDelivery, WebhookDeliveryAttempt]),
    IdempotencyModule,
    PetsModule,
    // An owner's row is locked while its subscriptions are counted against the cap.
    UsersModule,
  ],
  controllers: [WebhooksController, WebhookDeliveriesController],
  providers: [
    WebhooksService,
    WebhooksRepository,
    WebhookDeliveriesRepository,
    WebhookDeliveriesService,
    WebhookDeliveryJobs,
    WebhookFanOut,
    WebhookHttpClient,
  ],
  exports: [WebhookDeliveriesService],
})
export class WebhooksModule {}
