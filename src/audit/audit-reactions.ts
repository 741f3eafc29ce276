import { Injectable } from '@nestjs/common';
import type { CategoryEvent } from '../categories/category-events.js';
import { OnDomainEvent } from '../events/event-handlers.decorator.js';
import type { PetEvent } from '../pets/pet-events.js';
import type {
  UserCreated,
  UserDeleted,
  UserUpdated,
  UserUpdateOrigin,
} from '../users/user-events.js';
import type { WebhookSubscriptionEvent } from '../webhooks/webhook-subscription-events.js';
import { changesBetween, REDACTED, type AuditAction, type AuditChanges } from './audit-actions.js';
import { actorOfUserUpdate, AuditLog } from './audit-log.js';

const PET_FIELDS = [
  'name',
  'status',
  'categoryId',
  'age',
  'breed',
  'description',
  'tags',
  'photoUrls',
] as const;

const USER_FIELDS = [
  'username',
  'email',
  'firstName',
  'lastName',
  'phone',
  'userStatus',
  'role',
  'pendingEmail',
] as const;

const USER_UPDATE_ACTIONS: Record<UserUpdateOrigin, AuditAction> = {
  edit: 'user.updated',
  'email-verified': 'auth.email_verified',
  'password-set': 'auth.password_reset',
};

/**
 * The audit entries of changes other modules publish as domain events, written in the
 * change's transaction (`@OnDomainEvent`): the change and its entry commit or roll back
 * together.
 */
@Injectable()
export class AuditReactions {
  constructor(private readonly audit: AuditLog) {}

  @OnDomainEvent('category.created', 'category.updated', 'category.deleted')
  async onCategoryChanged(event: CategoryEvent): Promise<void> {
    await this.audit.record({
      action: event.type,
      target: { type: 'category', id: event.categoryId },
      changes: changesBetween(event.before, event.after, ['name', 'description']),
    });
  }

  @OnDomainEvent('webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_rotated')
  async onWebhookChanged(event: WebhookSubscriptionEvent): Promise<void> {
    const changes: AuditChanges = changesBetween(
      withAuditedUrl(event.before),
      withAuditedUrl(event.after),
      ['url', 'events', 'description', 'enabled'],
    );
    // The secret is in no event: only that it was made or replaced is known, and recorded.
    if (event.type === 'webhook.created') changes.secret = { from: null, to: REDACTED };
    if (event.type === 'webhook.secret_rotated') changes.secret = { from: REDACTED, to: REDACTED };
    await this.audit.record({
      action: event.type,
      target: { type: 'webhook', id: event.webhookId },
      changes,
    });
  }

  @OnDomainEvent('pet.deleted')
  async onPetDeleted(event: PetEvent): Promise<void> {
    const pet = { ...event.pet, tags: event.pet.tags.map((tag) => tag.name) };
    await this.audit.record({
      action: 'pet.deleted',
      target: { type: 'pet', id: event.petId },
      changes: changesBetween(pet, null, PET_FIELDS),
    });
  }

  /**
   * A sign-up is `auth.registered`, by the new user itself (its request has no credential);
   * an admin's creation or invitation is `user.created`, by the admin.
   */
  @OnDomainEvent('user.created')
  async onUserCreated(event: UserCreated): Promise<void> {
    const registered = event.origin === 'registration';
    await this.audit.record({
      action: registered ? 'auth.registered' : 'user.created',
      target: { type: 'user', id: event.userId },
      changes: changesBetween(null, event.after, USER_FIELDS),
      ...(registered && {
        actor: { actorUserId: event.userId, actorUsername: event.after.username },
      }),
    });
  }

  /**
   * An edit through the users routes is `user.updated`; a mailed link's change is the
   * account flow's action; each by its actor (actorOfUserUpdate).
   */
  @OnDomainEvent('user.updated')
  async onUserUpdated(event: UserUpdated): Promise<void> {
    const changes = changesBetween(event.before, event.after, USER_FIELDS);
    // The hash is in no event: only that the password changed is known, and recorded.
    if (event.fields.includes('passwordHash')) {
      changes.password = { from: REDACTED, to: REDACTED };
    }
    await this.audit.record({
      action: USER_UPDATE_ACTIONS[event.origin],
      target: { type: 'user', id: event.userId },
      changes,
      actor: actorOfUserUpdate(event),
    });
  }

  @OnDomainEvent('user.deleted')
  async onUserDeleted(event: UserDeleted): Promise<void> {
    await this.audit.record({
      action: 'user.deleted',
      target: { type: 'user', id: event.userId },
      changes: changesBetween(event.before, null, USER_FIELDS),
    });
  }
}

/**
 * A receiver's URL as the log keeps it, for a year: without query string, fragment or user
 * info, where receivers put tokens.
 */
function withAuditedUrl<T extends { url: string }>(webhook: T | null): T | null {
  if (webhook === null) return null;
  const url = new URL(webhook.url);
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  return { ...webhook, url: url.toString() };
}
