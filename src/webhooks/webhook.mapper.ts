import type { WebhookFiltersDto } from './dto/webhook-filters.dto.js';
import { WebhookResponse } from './dto/webhook-response.dto.js';
import type { WebhookSubscription } from './webhook-subscription.entity.js';

/** The filters set, or undefined when none is. */
export function filtersOf(subscription: WebhookSubscription): WebhookFiltersDto | undefined {
  const filters: WebhookFiltersDto = {
    // bigint[] may come back as strings, whatever the driver does with a single int8.
    categoryIds: subscription.filterCategoryIds?.map(Number),
    statuses: subscription.filterStatuses ?? undefined,
    tags: subscription.filterTags ?? undefined,
  };
  return Object.values(filters).some((value) => value !== undefined) ? filters : undefined;
}

/**
 * Without the secrets, which only creation and rotation show. Unset fields become undefined,
 * which JSON leaves out (docs/api.md: never null); so does a previous secret's expiry once past.
 * The owner is read with the subscription (WebhooksRepository loads it).
 */
export function toWebhookResponse(
  subscription: WebhookSubscription,
  now: Date = new Date(),
): WebhookResponse {
  const previousExpires = subscription.previousSecretExpiresAt;
  const owner = subscription.owner;
  return {
    id: subscription.id,
    owner: owner ? { id: owner.id, username: owner.username } : undefined,
    url: subscription.url,
    events: subscription.events,
    filters: filtersOf(subscription),
    description: subscription.description ?? undefined,
    enabled: subscription.enabled,
    disabledReason: subscription.disabledReason ?? undefined,
    previousSecretExpiresAt: previousExpires && previousExpires > now ? previousExpires : undefined,
    createdAt: subscription.createdAt,
    updatedAt: subscription.updatedAt,
  };
}
