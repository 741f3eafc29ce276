import {
  ADOPTION_WEBHOOK_EVENT_TYPES,
  type AdoptionWebhookEventType,
} from '../adoptions/adoption-events.js';
import type { Role } from '../common/types/principal.js';
import { PET_EVENT_TYPES, type PetEventType } from '../pets/pet-events.js';

/** The event types a subscription may name and a delivery sends (docs/events.md, "Webhooks"). */
export const WEBHOOK_EVENT_TYPES = [...PET_EVENT_TYPES, ...ADOPTION_WEBHOOK_EVENT_TYPES] as const;
export type WebhookEventType = PetEventType | AdoptionWebhookEventType;

/** The roles that hold subscriptions: the webhook routes' @Roles. */
export const WEBHOOK_OWNER_ROLES: readonly Role[] = ['admin', 'user'];

/**
 * The roles that read every event of a type, from the read routes' roles: any role reads a
 * pet (GET /v1/pets/{petId}); staff read every adoption, a customer only its own
 * (GET /v1/adoptions/{id}).
 */
const READERS: Readonly<Record<'pet' | 'adoption', readonly Role[]>> = {
  pet: ['admin', 'user', 'customer'],
  adoption: ['admin', 'user'],
};

/**
 * The owners' roles an event of this type is delivered to: those that hold subscriptions and
 * read every event of the type. A subscription whose owner lost such a role (or whose account
 * is disabled) gets nothing, until it has one again.
 */
export function webhookReadersOf(type: WebhookEventType): Role[] {
  const readers = (PET_EVENT_TYPES as readonly string[]).includes(type)
    ? READERS.pet
    : READERS.adoption;
  return WEBHOOK_OWNER_ROLES.filter((role) => readers.includes(role));
}
