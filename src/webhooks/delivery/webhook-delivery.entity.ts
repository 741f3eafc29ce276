import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  ForeignKey,
  Index,
  PrimaryGeneratedColumn,
  Unique,
} from 'typeorm';
import type { WebhookEventType } from '../webhook-event-types.js';
import { WebhookSubscription } from '../webhook-subscription.entity.js';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One event for one subscription, the record the delivery log shows; a job of the engine
 * sends and retries it (webhook-delivery-jobs.ts). `body` is the exact JSON signed and sent,
 * serialized once, so every attempt sends the same bytes.
 */
@Entity({ name: 'webhook_deliveries' })
@Check('CHK_webhook_deliveries_status', `"status" IN ('pending', 'succeeded', 'failed')`)
@Unique('UQ_webhook_deliveries_event', ['subscriptionId', 'eventId'])
@Index('IDX_webhook_deliveries_due', ['subscriptionId', 'nextAttemptAt'], {
  where: `"status" = 'pending'`,
})
@Index('IDX_webhook_deliveries_pending_per_pet', ['subscriptionId', 'petId', 'eventSequence'], {
  where: `"status" = 'pending'`,
})
@Index('IDX_webhook_deliveries_subscription', ['subscriptionId', 'id'])
// The sweep of ended deliveries.
@Index('IDX_webhook_deliveries_completed', ['completedAt'], { where: `"status" <> 'pending'` })
export class WebhookDelivery {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'PK_webhook_deliveries',
  })
  id: number;

  @Column({ name: 'subscription_id', type: 'bigint' })
  @ForeignKey(() => WebhookSubscription, 'id', {
    name: 'FK_webhook_deliveries_subscription',
    onDelete: 'CASCADE',
  })
  subscriptionId: number;

  /** The event's place in the pets' log: per (subscription, pet), deliveries go in this order. */
  @Column({ name: 'event_sequence', type: 'bigint' })
  eventSequence: number;

  /** The event's stable id, sent as `webhook-id`. */
  @Column({ name: 'event_id', type: 'varchar', length: 64 })
  eventId: string;

  @Column({ name: 'event_type', type: 'varchar', length: 32 })
  eventType: WebhookEventType;

  @Column({ name: 'pet_id', type: 'bigint' })
  petId: number;

  @Column({ type: 'text' })
  body: string;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  status: DeliveryStatus;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  nextAttemptAt: Date;

  /** Its 24 hours of retries count from here; a retry by hand starts them again. */
  @Column({ name: 'first_attempt_at', type: 'timestamptz', precision: 3, nullable: true })
  firstAttemptAt: Date | null;

  @Column({ name: 'last_attempt_at', type: 'timestamptz', precision: 3, nullable: true })
  lastAttemptAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ name: 'completed_at', type: 'timestamptz', precision: 3, nullable: true })
  completedAt: Date | null;
}
