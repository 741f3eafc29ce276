import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import type { TxHost } from '../../database/transactions.js';
import {
  ADOPTION_WEBHOOK_EVENT_TYPES,
  type AdoptionEvent,
} from '../../adoptions/adoption-events.js';
import { OutboxHandler } from '../../events/event-handlers.decorator.js';
import { PET_EVENT_TYPES, type PetEvent } from '../../pets/pet-events.js';
import { PetHistoryService } from '../../pets/pet-history.service.js';
import { webhookReadersOf, type WebhookEventType } from '../webhook-event-types.js';
import { WebhookDeliveriesRepository, type EventFanOut } from './webhook-deliveries.repository.js';
import { WebhookDeliveryJobs } from './webhook-delivery-jobs.js';

/**
 * The outbox consumer name of the fan-out; the migration that made the outbox and the
 * interest trigger (src/database/schema/outbox-interests.sql) name it too.
 */
export const WEBHOOK_FAN_OUT = 'webhook-fan-out';

const isPetEvent = (event: PetEvent | AdoptionEvent): event is PetEvent =>
  (PET_EVENT_TYPES as readonly string[]).includes(event.type);

/**
 * The fan-out: turns each committed pet or adoption event into deliveries, one per
 * interested subscription whose owner may read it and whose filters match, from the outbox (docs/events.md, "Webhooks"): each batch in one
 * statement, and the deliveries' jobs in one more, in the same transaction. The outbox hands
 * a pet's, or an adoption's, events over one at a time, in order; a second hand-over of an
 * event adds nothing.
 */
@Injectable()
export class WebhookFanOut {
  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly deliveryJobs: WebhookDeliveryJobs,
    private readonly petHistory: PetHistoryService,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {}

  @OutboxHandler(WEBHOOK_FAN_OUT, [...PET_EVENT_TYPES, ...ADOPTION_WEBHOOK_EVENT_TYPES], {
    gated: true,
  })
  async fanOut(events: (PetEvent | AdoptionEvent)[], messageIds: number[]): Promise<void> {
    await this.txHost.withTransaction(async () => {
      const added = await this.deliveries.insertForEvents(
        events.map((event, i) => this.fanOutOf(event, messageIds[i])),
      );
      await this.deliveryJobs.queue(added);
    });
  }

  /**
   * A pet event is ordered by its place in the pet's log; an adoption event, which has no log,
   * by its outbox row, which the outbox hands over in order per adoption.
   */
  private fanOutOf(event: PetEvent | AdoptionEvent, messageId: number): EventFanOut {
    if (isPetEvent(event)) {
      const { categoryId, status, tags } = event.pet;
      return {
        event,
        body: this.payload(event.type, event.occurredAt, this.petHistory.webhookData(event)),
        readers: webhookReadersOf(event.type),
        pet: { categoryId, status, tags: tags.map((tag) => tag.name) },
      };
    }
    // Handed only the types the handler names, none of them adoption.extended.
    const type = event.type as WebhookEventType;
    return {
      event: {
        sequence: messageId,
        id: event.id,
        type,
        petId: event.adoption.petId,
        occurredAt: event.occurredAt,
      },
      body: this.payload(event.type, event.occurredAt, event.body),
      readers: webhookReadersOf(type),
      // The filters narrow pet events only.
      pet: null,
    };
  }

  /**
   * The exact body sent for an event (Standard Webhooks' shape), serialized once at fan-out so
   * that every attempt and every subscriber gets, and is signed over, the same bytes.
   */
  private payload(type: string, occurredAt: string, data: unknown): string {
    return JSON.stringify({ type, timestamp: occurredAt, data });
  }
}
