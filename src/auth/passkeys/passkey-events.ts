import type { DomainEventBase } from '../../events/domain-event.js';

/*
 * What the passkeys publish of their changes (docs/events.md): the audit records them
 * (auth.passkey_added, auth.passkey_removed); none carries a key. Refused assertions publish
 * `auth.mfa_failed` as a wrong code does.
 */

/** A passkey registered by its owner. */
export interface PasskeyAdded extends DomainEventBase {
  type: 'auth.passkey_added';
  userId: number;
  passkeyId: number;
}

/** A passkey removed by its owner, with a proof. An admin's removal is `auth.mfa_removed`. */
export interface PasskeyRemoved extends DomainEventBase {
  type: 'auth.passkey_removed';
  userId: number;
  passkeyId: number;
}

declare module '../../events/domain-event.js' {
  interface DomainEventMap {
    'auth.passkey_added': PasskeyAdded;
    'auth.passkey_removed': PasskeyRemoved;
  }
}
