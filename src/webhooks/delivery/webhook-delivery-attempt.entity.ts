import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { WebhookDelivery } from './webhook-delivery.entity.js';

/** One POST of a delivery to its receiver, as the delivery log shows it. */
@Entity({ name: 'webhook_delivery_attempts' })
@Index('IDX_webhook_delivery_attempts_delivery', ['deliveryId', 'id'])
export class WebhookDeliveryAttempt {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'PK_webhook_delivery_attempts',
  })
  id: number;

  @Column({ name: 'delivery_id', type: 'bigint' })
  @ForeignKey(() => WebhookDelivery, 'id', {
    name: 'FK_webhook_delivery_attempts_delivery',
    onDelete: 'CASCADE',
  })
  deliveryId: number;

  @Column({
    name: 'attempted_at',
    type: 'timestamptz',
    precision: 3,
    default: () => 'now()',
  })
  attemptedAt: Date;

  /** The receiver's status; null when no response came (refused, timed out, blocked). */
  @Column({ name: 'status_code', type: 'smallint', nullable: true })
  statusCode: number | null;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs: number;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  error: string | null;

  /** The response's first 1024 characters at most: nothing more of it is kept. */
  @Column({ name: 'response_body', type: 'varchar', length: 1024, nullable: true })
  responseBody: string | null;
}
