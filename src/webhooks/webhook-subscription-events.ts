import type { DomainEventBase } from '../events/domain-event.js';
import type { WebhookFiltersDto } from './dto/webhook-filters.dto.js';
import { filtersOf } from './webhook.mapper.js';
import type { WebhookSubscription } from './webhook-subscription.entity.js';

export type WebhookSubscriptionEventType =
  'webhook.created' | 'webhook.updated' | 'webhook.deleted' | 'webhook.secret_rotated';

/** A subscription's fields as an event carries them: never its secrets. */
export type WebhookSubscriptionSnapshot = Pick<
  WebhookSubscription,
  'id' | 'ownerId' | 'url' | 'events' | 'description' | 'enabled'
> & { filters: WebhookFiltersDto | null };

/**
 * A change of a subscription (subject `webhook:<id>`): the subscription before it (null for
 * a creation) and after it (null for a deletion). A rotation changes only the secret, which
 * no event carries.
 */
export interface WebhookSubscriptionEvent extends DomainEventBase {
  type: WebhookSubscriptionEventType;
  webhookId: number;
  before: WebhookSubscriptionSnapshot | null;
  after: WebhookSubscriptionSnapshot | null;
}

declare module '../events/domain-event.js' {
  interface DomainEventMap {
    'webhook.created': WebhookSubscriptionEvent;
    'webhook.updated': WebhookSubscriptionEvent;
    'webhook.deleted': WebhookSubscriptionEvent;
    'webhook.secret_rotated': WebhookSubscriptionEvent;
  }
}

const snapshotOf = (s: WebhookSubscription): WebhookSubscriptionSnapshot => ({
  id: s.id,
  ownerId: s.ownerId,
  url: s.url,
  events: s.events,
  filters: filtersOf(s) ?? null,
  description: s.description,
  enabled: s.enabled,
});

/** The subscription before and after the change: a creation has no before, a deletion no after. */
type Change =
  | { before: WebhookSubscription; after: WebhookSubscription | null }
  | { before: null; after: WebhookSubscription };

export function webhookSubscriptionEvent(
  type: WebhookSubscriptionEventType,
  change: Change,
): WebhookSubscriptionEvent {
  const { before, after } = change;
  const webhookId = change.before === null ? change.after.id : change.before.id;
  return {
    type,
    subject: `webhook:${webhookId}`,
    webhookId,
    before: before && snapshotOf(before),
    after: after && snapshotOf(after),
  };
}
