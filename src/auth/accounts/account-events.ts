import type { DomainEventBase } from '../../events/domain-event.js';

/** The mails of the account flows, named as their templates (src/mail/templates). */
export type AccountMail =
  | 'verification'
  | 'registration-attempt'
  | 'password-reset'
  | 'invitation'
  | 'email-change'
  | 'email-change-attempt';

/**
 * A mail of an account flow, to send once the change commits (docs/identity.md, "Mailed
 * tokens and account flows"). Only the mail consumer takes it from the outbox.
 */
export interface AccountMailRequested extends DomainEventBase {
  type: 'account.mail_requested';
  /** Whose account the mail is about: its username greets, and its deletion cancels it. */
  userId: number;
  mail: AccountMail;
  to: string;
  /**
   * The raw token its link carries, kept in the outbox row until the mail is sent (the row
   * is then deleted); only its hash is in account_tokens. docs/api-decisions.md.
   */
  token?: string;
}

declare module '../../events/domain-event.js' {
  interface DomainEventMap {
    'account.mail_requested': AccountMailRequested;
  }
}
