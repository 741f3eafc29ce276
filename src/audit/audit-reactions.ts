import { Injectable } from '@nestjs/common';
import type { CategoryEvent } from '../categories/category-events.js';
import { OnDomainEvent } from '../events/event-handlers.decorator.js';
import type { PetEvent } from '../pets/pet-events.js';
import type { WebhookSubscriptionEvent } from '../webhooks/webhook-subscription-events.js';
import { changesBetween, REDACTED, type AuditChanges } from './audit-actions.js';
import { AuditLog } from './audit-log.js';

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
    const changes: AuditChanges = changesBetween(event.before, event.after, [
      'url',
      'events',
      'description',
      'enabled',
    ]);
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
}
