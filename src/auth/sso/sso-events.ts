import type { DomainEventBase } from '../../events/domain-event.js';

/**
 * A person signed in through the OpenID Connect provider, which started a session of the
 * account its verified address names; `created` when that sign-in made the account.
 */
export interface SsoLoggedIn extends DomainEventBase {
  type: 'auth.sso_logged_in';
  sessionId: number;
  userId: number;
  username: string;
  created: boolean;
}

declare module '../../events/domain-event.js' {
  interface DomainEventMap {
    'auth.sso_logged_in': SsoLoggedIn;
  }
}
