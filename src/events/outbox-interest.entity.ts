import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * How many subscribers of a gated consumer want an event type (docs/events.md, "Interest"):
 * publishing writes the consumer's outbox row for an event only while its type's count is
 * above zero. Written only by the triggers of src/database/schema/outbox-interests.sql, in
 * the transaction of each change of the subscribers.
 */
@Entity({ name: 'outbox_interests' })
export class OutboxInterest {
  /** The `@OutboxHandler` consumer, registered with `gated: true`. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'PK_outbox_interests' })
  consumer: string;

  @PrimaryColumn({
    name: 'event_type',
    type: 'text',
    primaryKeyConstraintName: 'PK_outbox_interests',
  })
  eventType: string;

  @Column({ type: 'integer' })
  subscribers: number;
}
