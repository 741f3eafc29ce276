import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A mail the SMTP server accepted for an outbox message, so that a second hand-over of the
 * message sends it no second time (docs/mail.md, "Never twice").
 */
@Entity({ name: 'sent_mails' })
@Index('IDX_sent_mails_sent_at', ['sentAt'])
export class SentMail {
  /** The outbox message the mail was sent for: the same at every hand-over of its event. */
  @PrimaryColumn({
    name: 'outbox_message_id',
    type: 'bigint',
    primaryKeyConstraintName: 'PK_sent_mails',
  })
  outboxMessageId: number;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'PK_sent_mails' })
  template: string;

  @Column({ name: 'sent_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  sentAt: Date;
}
