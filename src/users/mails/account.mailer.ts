import { Injectable } from '@nestjs/common';
import type { AccountMailRequested } from '../accounts/account-events.js';
import { TOKEN_TTL_SECONDS } from '../accounts/account-tokens.js';
import { ApiException } from '../../common/errors/api-exception.js';
import { messageOf } from '../../common/errors/message-of.js';
import { OutboxHandler } from '../../events/event-handlers.decorator.js';
import { awaitsVerification } from '../user-lifecycle.js';
import type { UserStatus } from '../user-status.js';
import { UsersService } from '../users.service.js';
import { MailService } from '../../mail/mail.service.js';
import { emailChangeAttemptMail } from './templates/email-change-attempt.template.js';
import { emailChangeMail } from './templates/email-change.template.js';
import { invitationMail } from './templates/invitation.template.js';
import type { Mail } from '../../mail/mail.js';
import { passwordResetMail } from './templates/password-reset.template.js';
import { MAIL_RETRY_FOR_MS } from './password-changed.mailer.js';
import { registrationAttemptMail } from './templates/registration-attempt.template.js';
import { verificationMail } from './templates/verification.template.js';

/** The outbox consumer that sends the account flows' mails; the outbox's rows name it. */
export const ACCOUNT_MAILS = 'mail.accounts';

const HOUR = 3600;

/**
 * Sends the mails of sign-up, verification, password reset, invitation and email change,
 * after the change that asked for them committed (docs/mail.md, "The outbox consumers").
 */
@Injectable()
export class AccountMailer {
  constructor(
    private readonly users: UsersService,
    private readonly mail: MailService,
  ) {}

  /** Each event on its own, as PasswordChangedMailer does, for the same reasons. */
  @OutboxHandler(ACCOUNT_MAILS, ['account.mail_requested'], { retryForMs: MAIL_RETRY_FOR_MS })
  async onMailRequested(events: AccountMailRequested[], messageIds: number[]): Promise<void> {
    const failures: string[] = [];
    for (const [index, event] of events.entries()) {
      try {
        await this.send(event, messageIds[index]);
      } catch (error) {
        failures.push(`${event.subject} (${event.mail}): ${messageOf(error)}`);
      }
    }
    if (failures.length > 0) {
      throw new Error(`${failures.length} account mail(s) not sent: ${failures.join('; ')}`);
    }
  }

  private async send(event: AccountMailRequested, messageId: number): Promise<void> {
    const user = await this.users.findOne(event.userId).catch((error: unknown) => {
      // Deleted since: its tokens went with it, and there is no one to greet.
      if (error instanceof ApiException && error.code === 'USER_NOT_FOUND') return null;
      throw error;
    });
    if (!user) return;
    await this.mail.deliverOnce(messageId, event.to, this.render(event, user));
  }

  /**
   * A mail to an address its account has not verified (a sign-up's, or a new address's)
   * greets no one: the username was chosen by whoever signed up with it.
   */
  private render(
    { mail, token = '' }: AccountMailRequested,
    { username, userStatus }: { username: string; userStatus: UserStatus },
  ): Mail {
    switch (mail) {
      case 'verification':
        return verificationMail({
          link: this.mail.consoleLink('verify-email', token),
          validHours: TOKEN_TTL_SECONDS['verify-email'] / HOUR,
        });
      case 'email-change':
        return emailChangeMail({
          link: this.mail.consoleLink('verify-email', token),
          validHours: TOKEN_TTL_SECONDS['email-change'] / HOUR,
        });
      case 'password-reset':
        return passwordResetMail({
          username: awaitsVerification(userStatus) ? null : username,
          link: this.mail.consoleLink('reset-password', token),
          validMinutes: TOKEN_TTL_SECONDS['reset-password'] / 60,
        });
      case 'invitation':
        return invitationMail({
          username,
          link: this.mail.consoleLink('reset-password', token),
          validDays: TOKEN_TTL_SECONDS.invitation / (24 * HOUR),
        });
      case 'registration-attempt':
        return registrationAttemptMail({
          username,
          forgotPasswordUrl: this.mail.consoleLink('reset-password'),
        });
      case 'email-change-attempt':
        return emailChangeAttemptMail({
          username,
          forgotPasswordUrl: this.mail.consoleLink('reset-password'),
        });
    }
  }
}
