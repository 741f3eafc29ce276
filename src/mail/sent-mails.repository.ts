import { Injectable } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import type { TxHost } from '../database/transactions.js';

/**
 * Past this age a record guards nothing: the outbox retries a message for 24 h
 * (docs/mail.md, "Never twice"), and a lease outlives that by a minute.
 */
const KEPT_FOR = '2 days';

/** The only door to `sent_mails`. */
@Injectable()
export class SentMailsRepository {
  constructor(@InjectTransactionHost() private readonly txHost: TxHost) {}

  async wasSent(outboxMessageId: number, template: string): Promise<boolean> {
    const rows = await this.txHost.tx.query<unknown[]>(
      'SELECT 1 FROM sent_mails WHERE outbox_message_id = $1 AND template = $2',
      [outboxMessageId, template],
    );
    return rows.length > 0;
  }

  /** Records a sent mail, and forgets those too old to guard anything, in one statement. */
  async record(outboxMessageId: number, template: string): Promise<void> {
    await this.txHost.tx.query(
      `WITH forgotten AS (DELETE FROM sent_mails WHERE sent_at < now() - interval '${KEPT_FOR}')
       INSERT INTO sent_mails (outbox_message_id, template) VALUES ($1, $2)
       ON CONFLICT DO NOTHING`,
      [outboxMessageId, template],
    );
  }
}
