import { Inject, Injectable } from '@nestjs/common';
import { mailConfig, type MailConfig } from '../../config/mail.config.js';
import { OnDomainEvent } from '../../events/event-handlers.decorator.js';
import type { UserUpdated } from '../user-events.js';
import { passwordChangedMail } from './templates/password-changed.template.js';
import { consoleLink } from './console-link.js';
import { UserMails } from './user-mails.js';

/**
 * Tells an account's owner that its password was changed: queued in the change's
 * transaction, sent once it commits (docs/mail.md).
 */
@Injectable()
export class PasswordChangedMailer {
  constructor(
    private readonly mails: UserMails,
    @Inject(mailConfig.KEY) private readonly cfg: MailConfig,
  ) {}

  @OnDomainEvent('user.updated')
  async onUserUpdated({ fields, userId, after }: UserUpdated): Promise<void> {
    if (!fields.includes('passwordHash')) return;
    const mail = passwordChangedMail({
      username: after.username,
      forgotPasswordUrl: consoleLink(this.cfg, 'reset-password'),
    });
    await this.mails.queue(userId, after.email, mail);
  }
}
