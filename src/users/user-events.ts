import type { RequestOrigin } from '../common/http/request-origin.js';
import type { DomainEventBase } from '../events/domain-event.js';
import type { User } from './user.entity.js';
import type { UserFields } from './users.repository.js';

/*
 * The user.* events (docs/events.md, "Domain events"), all published by UserEventPublisher
 * (user-event-publisher.ts).
 */

/**
 * A user's fields as an event carries them: no secret (the password hash) and no
 * bookkeeping (token cut-off, timestamps), since events are kept in the outbox.
 */
export type UserSnapshot = Pick<
  User,
  | 'id'
  | 'username'
  | 'email'
  | 'firstName'
  | 'lastName'
  | 'phone'
  | 'userStatus'
  | 'role'
  | 'pendingEmail'
>;

export const snapshotOfUser = (user: UserSnapshot): UserSnapshot => ({
  id: user.id,
  username: user.username,
  email: user.email,
  firstName: user.firstName,
  lastName: user.lastName,
  phone: user.phone,
  userStatus: user.userStatus,
  role: user.role,
  pendingEmail: user.pendingEmail,
});

/**
 * What made an update: an edit through the users routes, or a mailed link of the account
 * flows: an address verified (a sign-up's or an email change's), a password set (a reset's
 * or an invitation's).
 */
export type UserUpdateOrigin = 'edit' | 'email-verified' | 'password-set';

/** A user's account changed (docs/events.md, "Domain events"). */
export interface UserUpdated extends DomainEventBase {
  type: 'user.updated';
  userId: number;
  /** The fields the update wrote (`passwordHash` for a new password). */
  fields: (keyof UserFields)[];
  origin: UserUpdateOrigin;
  before: UserSnapshot;
  after: UserSnapshot;
}

/** How an account came to be; `sso`: a first sign-in through the OpenID Connect provider. */
export type UserOrigin = 'admin' | 'invitation' | 'registration' | 'sso';

/** An account was created (docs/events.md, "Domain events"). */
export interface UserCreated extends DomainEventBase {
  type: 'user.created';
  userId: number;
  origin: UserOrigin;
  after: UserSnapshot;
}

/**
 * An account is about to be deleted, in the deletion's transaction before its row goes: for
 * the modules whose rows refer to it and must be settled first (docs/events.md, "Domain
 * events"). Published only for in-transaction reactions: no outbox consumer takes it.
 */
export interface UserDeleting extends DomainEventBase {
  type: 'user.deleting';
  userId: number;
}

/** An account was deleted, with its sessions and API keys (docs/events.md, "Domain events"). */
export interface UserDeleted extends DomainEventBase {
  type: 'user.deleted';
  userId: number;
  before: UserSnapshot;
}

/**
 * An ask for a reset link that may be answered with one (the address is an account's that
 * can sign in), published when the ask is answered, after the request.
 */
export interface PasswordResetRequested extends DomainEventBase {
  type: 'user.password_reset_requested';
  userId: number;
  /** The request that asked. */
  request: RequestOrigin;
}

declare module '../events/domain-event.js' {
  interface DomainEventMap {
    'user.created': UserCreated;
    'user.updated': UserUpdated;
    'user.deleting': UserDeleting;
    'user.deleted': UserDeleted;
    'user.password_reset_requested': PasswordResetRequested;
  }
}
