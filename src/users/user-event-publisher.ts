import { Injectable } from '@nestjs/common';
import type { RequestOrigin } from '../common/http/request-origin.js';
import { DomainEvents } from '../events/domain-events.js';
import {
  snapshotOfUser,
  type UserOrigin,
  type UserSnapshot,
  type UserUpdateOrigin,
} from './user-events.js';
import type { User } from './user.entity.js';
import type { UserFields } from './users.repository.js';

/**
 * The one place that publishes the `user.*` events (their types: user-events.ts), in the
 * caller's transaction, each under its subject `user:<id>` (docs/events.md, "Domain events").
 */
@Injectable()
export class UserEventPublisher {
  constructor(private readonly events: DomainEvents) {}

  created(user: User, origin: UserOrigin): Promise<void> {
    return this.events.publish({
      type: 'user.created',
      subject: subjectOf(user.id),
      userId: user.id,
      origin,
      after: snapshotOfUser(user),
    });
  }

  /** `changes` are the fields the update wrote. */
  updated(before: User, after: User, changes: UserFields, origin: UserUpdateOrigin): Promise<void> {
    return this.events.publish({
      type: 'user.updated',
      subject: subjectOf(before.id),
      userId: before.id,
      fields: Object.keys(changes) as (keyof UserFields)[],
      origin,
      before: snapshotOfUser(before),
      after: snapshotOfUser(after),
    });
  }

  /** Before the user's row is deleted, in the same transaction. */
  deleting(userId: number): Promise<void> {
    return this.events.publish({
      type: 'user.deleting',
      subject: subjectOf(userId),
      userId,
    });
  }

  deleted(before: UserSnapshot): Promise<void> {
    return this.events.publish({
      type: 'user.deleted',
      subject: subjectOf(before.id),
      userId: before.id,
      before: snapshotOfUser(before),
    });
  }

  /** A reset link may be mailed to user `userId`, as `request` asked. */
  passwordResetRequested(userId: number, request: RequestOrigin): Promise<void> {
    return this.events.publish({
      type: 'user.password_reset_requested',
      subject: subjectOf(userId),
      userId,
      request,
    });
  }
}

const subjectOf = (userId: number) => `user:${userId}`;
