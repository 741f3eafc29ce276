import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { PetEvent, PetEventPublisher } from '../../pets/pet-events.js';
import { PetHistoryService } from '../../pets/pet-history.service.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';

/** Events handed over per transaction. */
const PUBLISH_BATCH = 100;

/**
 * The exact body sent for an event (Standard Webhooks' shape), serialized once at fan-out so
 * that every attempt and every subscriber gets, and is signed over, the same bytes.
 */
function webhookPayload(event: PetEvent): string {
  return JSON.stringify({
    type: event.type,
    timestamp: event.occurredAt.toISOString(),
    data: event.data,
  });
}

/**
 * The fan-out: turns the pets' outbox into deliveries, one per interested subscription, in
 * the transaction that marks the events published, so that an event is neither lost nor fanned
 * out twice. It runs at the start of every dispatcher cycle, and a recorded change starts a
 * cycle at once.
 */
@Injectable()
export class WebhookPublisher implements OnModuleInit {
  constructor(
    private readonly history: PetHistoryService,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly dispatcher: WebhookDispatcher,
  ) {}

  // Before the dispatcher's first cycle, which starts with the application.
  onModuleInit(): void {
    this.dispatcher.beforeEachCycle(() => this.publishAll());
    this.history.onRecorded(() => this.dispatcher.nudge());
  }

  /** Until nothing is left, or another instance is publishing (it then does the rest). */
  private async publishAll(): Promise<void> {
    while ((await this.history.publishPending(this.publish, PUBLISH_BATCH)) === PUBLISH_BATCH);
  }

  private readonly publish: PetEventPublisher = async (events) => {
    await this.deliveries.insertForEvents(
      events.map((event) => ({
        sequence: event.sequence,
        id: event.id,
        type: event.type,
        petId: event.petId,
        occurredAt: event.occurredAt,
        body: webhookPayload(event),
      })),
    );
  };
}
