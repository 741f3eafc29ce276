import type { DomainEventBase } from '../events/domain-event.js';
import type { UserFields } from './users.repository.js';

/** A user's account changed (docs/events.md, "Domain events"). */
export interface UserUpdated extends DomainEventBase {
  type: 'user.updated';
  userId: number;
  /** The fields the update wrote (`passwordHash` for a new password). */
  fields: (keyof UserFields)[];
}

/** How an account came to be. */
export type UserOrigin = 'admin' | 'invitation' | 'registration';

/** An account was created (docs/events.md, "Domain events"). */
export interface UserCreated extends DomainEventBase {
  type: 'user.created';
  userId: number;
  origin: UserOrigin;
}

declare module '../events/domain-event.js' {
  interface DomainEventMap {
    'user.created': UserCreated;
    'user.updated': UserUpdated;
  }
}
