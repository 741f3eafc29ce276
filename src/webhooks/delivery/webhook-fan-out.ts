import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import type { TxHost } from '../../database/transactions.js';
import { OutboxHandler } from '../../events/event-handlers.decorator.js';
import { PET_EVENT_TYPES, type PetEvent } from '../../pets/pet-events.js';
import { PetHistoryService } from '../../pets/pet-history.service.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookDeliveryJobs } from './webhook-delivery-jobs.js';

/**
 * The outbox consumer name of the fan-out; the migration that made the outbox and the
 * interest trigger (src/database/schema/outbox-interests.sql) name it too.
 */
export const WEBHOOK_FAN_OUT = 'webhook-fan-out';

/**
 * The fan-out: turns each committed pet event into deliveries, one per interested
 * subscription, from the outbox (docs/events.md, "Webhooks"): each batch in one statement,
 * and the deliveries' jobs in one more, in the same transaction. The outbox hands a pet's
 * events over one at a time, in order; a second hand-over of an event adds nothing.
 */
@Injectable()
export class WebhookFanOut {
  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly deliveryJobs: WebhookDeliveryJobs,
    private readonly petHistory: PetHistoryService,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {}

  @OutboxHandler(WEBHOOK_FAN_OUT, PET_EVENT_TYPES, { gated: true })
  async fanOut(events: PetEvent[]): Promise<void> {
    await this.txHost.withTransaction(async () => {
      const added = await this.deliveries.insertForEvents(
        events.map((event) => ({ event, body: this.payload(event) })),
      );
      await this.deliveryJobs.queue(added);
    });
  }

  /**
   * The exact body sent for an event (Standard Webhooks' shape), serialized once at fan-out so
   * that every attempt and every subscriber gets, and is signed over, the same bytes.
   */
  private payload(event: PetEvent): string {
    return JSON.stringify({
      type: event.type,
      timestamp: event.occurredAt,
      data: this.petHistory.webhookData(event),
    });
  }
}
