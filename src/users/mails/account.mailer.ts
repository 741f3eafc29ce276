import { Inject, Injectable } from '@nestjs/common';
import { mailConfig, type MailConfig } from '../../config/mail.config.js';
import { TOKEN_TTL_SECONDS } from '../accounts/account-tokens.js';
import type { Mail } from '../../mail/mail.js';
import { awaitsVerification } from '../user-lifecycle.js';
import type { User } from '../user.entity.js';
import { emailChangeAttemptMail } from './templates/email-change-attempt.template.js';
import { emailChangeMail } from './templates/email-change.template.js';
import { invitationMail } from './templates/invitation.template.js';
import { passwordResetMail } from './templates/password-reset.template.js';
import { registrationAttemptMail } from './templates/registration-attempt.template.js';
import { verificationMail } from './templates/verification.template.js';
import { consoleLink } from './console-link.js';
import { UserMails } from './user-mails.js';

/** The mails of the account flows, named as their templates (./templates). */
export type AccountMail =
  | 'verification'
  | 'registration-attempt'
  | 'password-reset'
  | 'invitation'
  | 'email-change'
  | 'email-change-attempt';

/** What a mail says of the account it is about. */
export type MailedAccount = Pick<User, 'id' | 'username' | 'userStatus'>;

const HOUR = 3600;

/**
 * Renders the mails of sign-up, verification, password reset, invitation and email change,
 * and queues them in the transaction of the change that asks for them (docs/mail.md): the
 * username is the one at that moment.
 */
@Injectable()
export class AccountMailer {
  constructor(
    private readonly mails: UserMails,
    @Inject(mailConfig.KEY) private readonly cfg: MailConfig,
  ) {}

  /** `mail` about `account` to `to`, with `token` in its link if it has one. */
  async queue(account: MailedAccount, mail: AccountMail, to: string, token = ''): Promise<void> {
    await this.mails.queue(account.id, to, this.render(mail, account, token));
  }

  /**
   * A mail to an address its account has not verified (a sign-up's, or a new address's)
   * greets no one: the username was chosen by whoever signed up with it.
   */
  private render(mail: AccountMail, { username, userStatus }: MailedAccount, token: string): Mail {
    switch (mail) {
      case 'verification':
        return verificationMail({
          link: consoleLink(this.cfg, 'verify-email', token),
          validHours: TOKEN_TTL_SECONDS['verify-email'] / HOUR,
        });
      case 'email-change':
        return emailChangeMail({
          link: consoleLink(this.cfg, 'verify-email', token),
          validHours: TOKEN_TTL_SECONDS['email-change'] / HOUR,
        });
      case 'password-reset':
        return passwordResetMail({
          username: awaitsVerification(userStatus) ? null : username,
          link: consoleLink(this.cfg, 'reset-password', token),
          validMinutes: TOKEN_TTL_SECONDS['reset-password'] / 60,
        });
      case 'invitation':
        return invitationMail({
          username,
          link: consoleLink(this.cfg, 'reset-password', token),
          validDays: TOKEN_TTL_SECONDS.invitation / (24 * HOUR),
        });
      case 'registration-attempt':
        return registrationAttemptMail({
          username,
          forgotPasswordUrl: consoleLink(this.cfg, 'reset-password'),
        });
      case 'email-change-attempt':
        return emailChangeAttemptMail({
          username,
          forgotPasswordUrl: consoleLink(this.cfg, 'reset-password'),
        });
    }
  }
}
