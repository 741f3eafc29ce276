import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * The account mails sent to one address in the last hour, per scope (docs/identity.md, "Mail
 * limit"), in the database so that every instance counts the same.
 */
@Entity({ name: 'mail_quotas' })
@Index('IDX_mail_quotas_last_sent_at', ['lastSentAt'])
export class MailQuota {
  /** The address in lower case: the limit ignores case, as the unique index on emails does. */
  @PrimaryColumn({ type: 'varchar', length: 254, primaryKeyConstraintName: 'PK_mail_quotas' })
  address: string;

  /**
   * What the row counts: `from:<requester>`, one requester's mails; `all`, `all:reset`, the
   * overall caps; `owed:reset`, a reset mail waiting for room under its cap (sent_at empty).
   */
  @PrimaryColumn({ type: 'varchar', length: 100, primaryKeyConstraintName: 'PK_mail_quotas' })
  scope: string;

  /**
   * When each of the last mails (at most the limit) was counted. Full precision, unlike the
   * other tables: the count compares the last one with the transaction's now().
   */
  @Column({ name: 'sent_at', type: 'timestamptz', array: true })
  sentAt: Date[];

  @Column({ name: 'last_sent_at', type: 'timestamptz' })
  lastSentAt: Date;
}
