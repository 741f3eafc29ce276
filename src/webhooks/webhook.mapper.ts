import { WebhookResponse } from './dto/webhook-response.dto.js';
import type { WebhookSubscription } from './webhook-subscription.entity.js';

/**
 * Without the secrets, which only creation and rotation show. Unset fields become undefined,
 * which JSON leaves out (docs/api.md: never null); so does a previous secret's expiry once past.
 */
export function toWebhookResponse(
  subscription: WebhookSubscription,
  now: Date = new Date(),
): WebhookResponse {
  const previousExpires = subscription.previousSecretExpiresAt;
  return {
    id: subscription.id,
    url: subscription.url,
    events: subscription.events,
    description: subscription.description ?? undefined,
    enabled: subscription.enabled,
    disabledReason: subscription.disabledReason ?? undefined,
    previousSecretExpiresAt: previousExpires && previousExpires > now ? previousExpires : undefined,
    createdAt: subscription.createdAt,
    updatedAt: subscription.updatedAt,
  };
}
