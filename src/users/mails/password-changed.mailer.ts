import { Injectable } from '@nestjs/common';
import { ApiException } from '../../common/errors/api-exception.js';
import { messageOf } from '../../common/errors/message-of.js';
import { OutboxHandler } from '../../events/event-handlers.decorator.js';
import type { UserUpdated } from '../user-events.js';
import { UsersService } from '../users.service.js';
import { MailService } from '../../mail/mail.service.js';
import { passwordChangedMail } from './templates/password-changed.template.js';

/** The outbox consumer that mails password changes; the outbox's rows name it. */
export const PASSWORD_CHANGED_MAILS = 'mail.password-changed';

/** The contract's span of retries for a mail (docs/mail.md, "The outbox consumer"). */
export const MAIL_RETRY_FOR_MS = 24 * 60 * 60 * 1000;

/** Tells an account's owner that its password was changed, after the change committed. */
@Injectable()
export class PasswordChangedMailer {
  constructor(
    private readonly users: UsersService,
    private readonly mail: MailService,
  ) {}

  /**
   * Each event on its own: one mail the server refuses does not hold back the others of the
   * batch, and the retry of the batch skips those sent (MailService.deliverOnce).
   */
  @OutboxHandler(PASSWORD_CHANGED_MAILS, ['user.updated'], { retryForMs: MAIL_RETRY_FOR_MS })
  async onUserUpdated(events: UserUpdated[], messageIds: number[]): Promise<void> {
    const failures: string[] = [];
    for (const [index, event] of events.entries()) {
      if (!event.fields.includes('passwordHash')) continue;
      try {
        await this.mailFor(event, messageIds[index]);
      } catch (error) {
        failures.push(`${event.subject}: ${messageOf(error)}`);
      }
    }
    if (failures.length > 0) {
      throw new Error(
        `${failures.length} password-changed mail(s) not sent: ${failures.join('; ')}`,
      );
    }
  }

  private async mailFor(event: UserUpdated, messageId: number): Promise<void> {
    const user = await this.users.findOne(event.userId).catch((error: unknown) => {
      // Deleted since: there is no one to tell.
      if (error instanceof ApiException && error.code === 'USER_NOT_FOUND') return null;
      throw error;
    });
    if (!user) return;
    const mail = passwordChangedMail({
      username: user.username,
      forgotPasswordUrl: this.mail.consoleLink('reset-password'),
    });
    await this.mail.deliverOnce(messageId, user.email, mail);
  }
}
