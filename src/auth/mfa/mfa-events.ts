import type { DomainEventBase } from '../../events/domain-event.js';

/*
 * What the second factor publishes of its changes and refusals (docs/events.md): the audit
 * records them (auth.mfa_enrolled, auth.mfa_removed, auth.mfa_failed); none carries a secret.
 */

/** A TOTP factor confirmed with its first code, by its owner. */
export interface MfaEnrolled extends DomainEventBase {
  type: 'auth.mfa_enrolled';
  userId: number;
}

/** An account's factors removed: by itself with a code, or by an admin (the request's actor). */
export interface MfaRemoved extends DomainEventBase {
  type: 'auth.mfa_removed';
  userId: number;
  by: 'self' | 'admin';
}

/**
 * A wrong code or a refused passkey assertion (committed before the request fails): while
 * completing a login (`verify`) or signing in with a passkey alone (`passkey_login`), whose
 * requests carry no credential, so the account is named; confirming an enrolment or
 * removing a factor.
 */
export interface MfaFailed extends DomainEventBase {
  type: 'auth.mfa_failed';
  userId: number;
  username: string;
  step: 'verify' | 'passkey_login' | 'confirm' | 'remove';
}

declare module '../../events/domain-event.js' {
  interface DomainEventMap {
    'auth.mfa_enrolled': MfaEnrolled;
    'auth.mfa_removed': MfaRemoved;
    'auth.mfa_failed': MfaFailed;
  }
}
