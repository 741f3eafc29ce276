import type { DomainEventBase } from '../events/domain-event.js';
import type { UserUpdateOrigin } from '../users/user-events.js';
import type { ApiKeyLabel } from './api-keys.repository.js';

/*
 * What auth publishes of its own changes (docs/events.md, "Domain events"): a credential
 * turned into a session, refused or given up, a session or API key ended or made. The
 * audit records them; none carries a secret.
 */

/** A login started a session; the request carries no credential, so the account is named. */
export interface LoggedIn extends DomainEventBase {
  type: 'auth.logged_in';
  sessionId: number;
  userId: number;
  username: string;
}

/** A login refused for its username and password (published in a transaction of its own). */
export interface LoginFailed extends DomainEventBase {
  type: 'auth.login_failed';
  /** The username tried, as sent. */
  username: string;
}

/** A refresh token gave up its session. */
export interface LoggedOut extends DomainEventBase {
  type: 'auth.logged_out';
  sessionId: number;
  userId: number;
}

/**
 * Sessions ended: one (`sessionId`), or every session of the user at once (an admin's
 * revocation, `sessionId` null). `cause` is the user update that moved the account's
 * token cut-off, whose actor the revocation is.
 */
export interface SessionRevoked extends DomainEventBase {
  type: 'auth.session_revoked';
  sessionId: number | null;
  userId: number;
  cause?: UserUpdateOrigin;
}

/**
 * An API key made or revoked, as its label (never its hash). `cause` is the password
 * change that revoked it, whose actor the revocation is.
 */
export interface ApiKeyChanged extends DomainEventBase {
  type: 'auth.api_key_created' | 'auth.api_key_revoked';
  userId: number;
  apiKey: ApiKeyLabel;
  cause?: UserUpdateOrigin;
}

declare module '../events/domain-event.js' {
  interface DomainEventMap {
    'auth.logged_in': LoggedIn;
    'auth.login_failed': LoginFailed;
    'auth.logged_out': LoggedOut;
    'auth.session_revoked': SessionRevoked;
    'auth.api_key_created': ApiKeyChanged;
    'auth.api_key_revoked': ApiKeyChanged;
  }
}
