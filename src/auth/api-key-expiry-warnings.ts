import { Injectable, Logger } from '@nestjs/common';
import { InjectTransactionHost } from '@nestjs-cls/transactional';
import { deleteInBatches } from '../common/scheduling/delete-in-batches.js';
import type { TxHost } from '../database/transactions.js';
import { OnDomainEvent, RecurringJob } from '../events/event-handlers.decorator.js';
import { Jobs } from '../events/jobs.js';
import { MAIL_QUEUE, mailJob } from '../mail/mail-queue.js';
import type { UserDeleted } from '../users/user-events.js';
import { UserLookupService } from '../users/user-lookup.service.js';
import { apiKeyExpiringMail } from './api-key-mail-templates.js';
import { ApiKeysRepository } from './api-keys.repository.js';

/** The recurring job's queue (docs/jobs.md); kept in the rows. */
export const API_KEY_EXPIRY_WARNING_QUEUE = 'api-keys.expiry-warning';

/** docs/identity.md: the owner is told this long before a key ends, as the list flags it. */
export const EXPIRY_WARNING_DAYS = 7;

const WARNING_INTERVAL_MS = 10 * 60_000;
// Keys warned per transaction: each is a mail queued, so batches stay short.
const WARNING_BATCH = 100;

// An owner's warnings leave in order, and are cancelled with the owner.
const mailSubjectOf = (userId: number) => `api_key_owner:${userId}`;

/**
 * The mail to a key's owner a week before the key ends (docs/identity.md, "Expiry and
 * rolling"). A recurring job marks the keys to warn and queues their mails in one
 * transaction, so a key is warned exactly once across instances and restarts; a roll marks
 * the old key, whose owner needs no telling, and its successor, a new key, is warned in turn.
 */
@Injectable()
export class ApiKeyExpiryWarnings {
  private readonly logger = new Logger('ApiKeys');

  constructor(
    private readonly apiKeys: ApiKeysRepository,
    private readonly users: UserLookupService,
    private readonly jobs: Jobs,
    @InjectTransactionHost() private readonly txHost: TxHost,
  ) {}

  /** Warns every key due for it; how many. */
  warnExpiring(): Promise<number> {
    return deleteInBatches((limit) => this.warnBatch(limit), WARNING_BATCH);
  }

  /** A failure is logged and retried by the job engine. */
  @RecurringJob(API_KEY_EXPIRY_WARNING_QUEUE, WARNING_INTERVAL_MS)
  async sweep(): Promise<void> {
    const warned = await this.warnExpiring();
    if (warned > 0) this.logger.debug(`Warned of ${warned} API keys expiring soon`);
  }

  /** In the deletion's transaction: there is no one to mail any more. */
  @OnDomainEvent('user.deleted')
  async cancelOfDeleted(event: UserDeleted): Promise<void> {
    await this.jobs.cancel(MAIL_QUEUE, mailSubjectOf(event.userId));
  }

  private warnBatch(limit: number): Promise<number> {
    return this.txHost.withTransaction(async () => {
      const keys = await this.apiKeys.markExpiryWarned(EXPIRY_WARNING_DAYS, limit);
      if (keys.length === 0) return 0;
      const emails = await this.users.emailsOf([...new Set(keys.map((key) => key.userId))]);
      const mails = keys.flatMap((key) => {
        const to = emails.get(key.userId);
        if (to === undefined) return [];
        const mail = apiKeyExpiringMail({
          username: key.username,
          keyName: key.name,
          prefix: key.prefix,
          expiresAt: key.expiresAt,
        });
        return [mailJob(mailSubjectOf(key.userId), to, mail)];
      });
      await this.jobs.enqueueAll(MAIL_QUEUE, mails);
      return keys.length;
    });
  }
}
