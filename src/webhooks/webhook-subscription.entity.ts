import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import type { PetStatus } from '../pets/pet-status.js';
import { User } from '../users/user.entity.js';
import type { WebhookEventType } from './webhook-event-types.js';

/**
 * Where events go: one receiver URL, the event types it asked for, and the filters that
 * narrow its pet events (each null when not set).
 */
@Entity({ name: 'webhook_subscriptions' })
@Index('IDX_webhook_subscriptions_owner', ['ownerId', 'id'])
export class WebhookSubscription {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'PK_webhook_subscriptions',
  })
  id: number;

  @Column({ type: 'varchar', length: 2048 })
  url: string;

  /** The staff account it belongs to; null for the store's own (made before owners). */
  @Column({ name: 'owner_id', type: 'bigint', nullable: true })
  ownerId: number | null;

  /** Deleting a user deletes its subscriptions. */
  @ManyToOne(() => User, { onDelete: 'CASCADE', nullable: true })
  @JoinColumn({ name: 'owner_id', foreignKeyConstraintName: 'FK_webhook_subscriptions_owner' })
  owner: User | null;

  @Column({ type: 'text', array: true })
  events: WebhookEventType[];

  @Column({ name: 'filter_category_ids', type: 'bigint', array: true, nullable: true })
  filterCategoryIds: number[] | null;

  @Column({ name: 'filter_statuses', type: 'text', array: true, nullable: true })
  filterStatuses: PetStatus[] | null;

  @Column({ name: 'filter_tags', type: 'text', array: true, nullable: true })
  filterTags: string[] | null;

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
