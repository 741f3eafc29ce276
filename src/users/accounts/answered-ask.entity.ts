import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * An anonymous ask answered (account.mail_asked), by its outbox message: the same at every
 * hand-over, so that a batch handed over again answers no ask twice.
 */
@Entity({ name: 'answered_asks' })
@Index('IDX_answered_asks_answered_at', ['answeredAt'])
export class AnsweredAsk {
  @PrimaryColumn({
    name: 'outbox_message_id',
    type: 'bigint',
    primaryKeyConstraintName: 'PK_answered_asks',
  })
  outboxMessageId: number;

  @Column({ name: 'answered_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  answeredAt: Date;
}
