import {
  ADOPTION_WEBHOOK_EVENT_TYPES,
  type AdoptionWebhookEventType,
} from '../adoptions/adoption-events.js';
import { PET_EVENT_TYPES, type PetEventType } from '../pets/pet-events.js';

/** The event types a subscription may name and a delivery sends (docs/events.md, "Webhooks"). */
export const WEBHOOK_EVENT_TYPES = [...PET_EVENT_TYPES, ...ADOPTION_WEBHOOK_EVENT_TYPES] as const;
export type WebhookEventType = PetEventType | AdoptionWebhookEventType;
