import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One event still to hand to one consumer (docs/events.md, "The outbox"). Written in the
 * transaction of the change that published the event; deleted once the consumer's handler
 * has returned; kept with `failedAt` set when every attempt failed.
 */
@Entity({ name: 'outbox_messages' })
// The claim: what is due, oldest first.
@Index('IDX_outbox_messages_due', ['nextAttemptAt', 'id'], { where: '"failed_at" IS NULL' })
// A subject's earlier messages for the same consumer, which hold the later ones back.
@Index('IDX_outbox_messages_subject', ['consumer', 'subject', 'id'])
export class OutboxMessage {
  @PrimaryGeneratedColumn('increment', {
    type: 'bigint',
    primaryKeyConstraintName: 'PK_outbox_messages',
  })
  id: number;

  /** The `@OutboxHandler` the message is for. */
  @Column({ type: 'text' })
  consumer: string;

  /** The event's subject: a subject's messages go to a consumer one at a time, in order. */
  @Column({ type: 'text' })
  subject: string;

  @Column({ name: 'event_type', type: 'text' })
  eventType: string;

  /** The event as published. */
  @Column({ type: 'jsonb' })
  event: unknown;

  /** Attempts started, the one in progress included. */
  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({
    name: 'next_attempt_at',
    type: 'timestamptz',
    precision: 3,
    default: () => 'now()',
  })
  nextAttemptAt: Date;

  /** Set by a claim; proves it when the attempt ends. */
  @Column({ name: 'claim_token', type: 'uuid', nullable: true })
  claimToken: string | null;

  /** Until then, the claim's holder works on it; after it, the holder is presumed dead. */
  @Column({ name: 'claimed_until', type: 'timestamptz', precision: 3, nullable: true })
  claimedUntil: Date | null;

  /** What a long job last reported of its progress (docs/jobs.md, "Progress"). */
  @Column({ type: 'jsonb', nullable: true })
  progress: unknown;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  /** Set when the last attempt allowed failed: the message is kept for an operator. */
  @Column({ name: 'failed_at', type: 'timestamptz', precision: 3, nullable: true })
  failedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
