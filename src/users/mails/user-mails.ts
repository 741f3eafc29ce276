import { Injectable, type OnModuleInit } from '@nestjs/common';
import { OnDomainEvent } from '../../events/event-handlers.decorator.js';
import { Jobs } from '../../events/jobs.js';
import { MailRecipientsService } from '../../mail/mail-recipients.service.js';
import { MAIL_QUEUE, mailJob } from '../../mail/mail-queue.js';
import type { Mail } from '../../mail/mail.js';
import type { UserDeleted } from '../user-events.js';
import { UserLookupService } from '../user-lookup.service.js';

const subjectOf = (userId: number) => `user:${userId}`;

/**
 * Queues the users module's rendered mails to the mail module (docs/mail.md, "The mail
 * queue"), each under its user: a user's mails leave in order, and a deleted user's still
 * queued are cancelled with it. Tells the mail module where an account's mail goes, for the
 * mails queued to an account rather than an address (the adoptions').
 */
@Injectable()
export class UserMails implements OnModuleInit {
  constructor(
    private readonly jobs: Jobs,
    private readonly recipients: MailRecipientsService,
    private readonly users: UserLookupService,
  ) {}

  onModuleInit(): void {
    this.recipients.register((userIds) => this.users.emailsOf(userIds));
  }

  /** Queues `mail` about user `userId` to `to`, in the caller's transaction. */
  async queue(userId: number, to: string, mail: Mail): Promise<void> {
    await this.jobs.enqueue(MAIL_QUEUE, mailJob(subjectOf(userId), to, mail));
  }

  /** In the deletion's transaction: its tokens go with it, and there is no one to mail. */
  @OnDomainEvent('user.deleted')
  async cancelOfDeleted(event: UserDeleted): Promise<void> {
    await this.jobs.cancel(MAIL_QUEUE, subjectOf(event.userId));
  }
}
