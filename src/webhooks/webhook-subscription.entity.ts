import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { WebhookEventType } from './webhook-event-types.js';

/** Where events go: one receiver URL and the event types it asked for. */
@Entity({ name: 'webhook_subscriptions' })
export class WebhookSubscription {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'PK_webhook_subscriptions',
  })
  id: number;

  @Column({ type: 'varchar', length: 2048 })
  url: string;

  @Column({ type: 'text', array: true })
  events: WebhookEventType[];

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  /** Why the service disabled it (failing for 24 hours); cleared when re-enabled. */
  @Column({ name: 'disabled_reason', type: 'varchar', length: 500, nullable: true })
  disabledReason: string | null;

  /**
   * `whsec_...`, kept as is: signing needs the secret itself, so it cannot be hashed like
   * an API key. It is never logged or returned after creation and rotation.
   */
  @Column({ type: 'varchar', length: 100 })
  secret: string;

  /** After a rotation, the old secret signs alongside the new one until it expires. */
  @Column({ name: 'previous_secret', type: 'varchar', length: 100, nullable: true })
  previousSecret: string | null;

  @Column({
    name: 'previous_secret_expires_at',
    type: 'timestamptz',
    precision: 3,
    nullable: true,
  })
  previousSecretExpiresAt: Date | null;

  /** Since when every attempt has failed; null after a success. */
  @Column({ name: 'failing_since', type: 'timestamptz', precision: 3, nullable: true })
  failingSince: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
