import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../../idempotency/idempotency.module.js';
import { PetsModule } from '../../pets/pets.module.js';
import { WebhookHttpClient } from '../outbound/webhook-http-client.js';
import { WebhookDeliveriesController } from './webhook-deliveries.controller.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookDeliveriesService } from './webhook-deliveries.service.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhookPublisher } from './webhook-publisher.js';

/** Sends subscribed events to their receivers, and shows and retries what was sent. */
@Module({
  imports: [IdempotencyModule, PetsModule],
  controllers: [WebhookDeliveriesController],
  providers: [
    WebhookDeliveriesRepository,
    WebhookDeliveriesService,
    WebhookDispatcher,
    WebhookPublisher,
    WebhookHttpClient,
  ],
})
export class WebhookDeliveryModule {}
