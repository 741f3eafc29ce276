import type { RequestOrigin } from '../../common/http/request-origin.js';
import type { DomainEventBase } from '../../events/domain-event.js';

/** What an anonymous request asked of an address: a sign-up's mail, a new link, a reset. */
export type AccountAsk = 'registration' | 'verification' | 'password-reset';

/**
 * An anonymous request naming an address, answered before anything depends on whether the
 * address is known: the accounts module's outbox consumer looks the address up and does the
 * work (token, mail, audit entry) after the answer (docs/identity.md, "No enumeration").
 */
export interface AccountMailAsked extends DomainEventBase {
  type: 'account.mail_asked';
  ask: AccountAsk;
  /** The address as given. */
  email: string;
  /** A sign-up's new account. */
  userId?: number;
  /** Who asked (the client address's tracker): the mail quota counts per requester. */
  requester: string;
  /** The request, for the audit entry written after it. */
  request: RequestOrigin;
  /**
   * When it was asked (ISO 8601): a reset asked before the account's password or email
   * changed is not answered. Absent from asks written by earlier versions, still retried.
   */
  askedAt?: string;
  /** A reset owed to the address, sent again once its overall cap has room. */
  deferred?: true;
}

declare module '../../events/domain-event.js' {
  interface DomainEventMap {
    'account.mail_asked': AccountMailAsked;
  }
}
