/** The kinds of change a pet's history records and webhooks publish (docs/events.md). */
export const PET_EVENT_TYPES = [
  'pet.created',
  'pet.updated',
  'pet.status_changed',
  'pet.deleted',
  'pet.image_added',
] as const;
export type PetEventType = (typeof PET_EVENT_TYPES)[number];

/**
 * What a `pet.updated` event's `changedFields` may name: every field a PUT writes but
 * status (a move is `pet.status_changed`), in the request body's order.
 */
export const PET_CHANGED_FIELDS = [
  'name',
  'categoryId',
  'photoUrls',
  'age',
  'breed',
  'description',
  'tags',
] as const;
export type PetChangedField = (typeof PET_CHANGED_FIELDS)[number];

/** A recorded change of a pet, as pets hands it to the module that publishes it. */
export interface PetEvent {
  /** Position in the log. For one pet, the order in which its changes committed. */
  sequence: number;
  /** Stable id, the same on every delivery of the event (Standard Webhooks' `webhook-id`). */
  id: string;
  type: PetEventType;
  petId: number;
  occurredAt: Date;
  /**
   * The payload's `data`: the pet as the API returned it after the change (as it was, for a
   * deletion); a status move adds `from` and `to`.
   */
  data: Record<string, unknown>;
}

/**
 * Receives recorded events not yet published, oldest first, inside the transaction that marks
 * them published: what its repositories write joins that transaction, so it commits with the
 * mark, or neither does.
 */
export type PetEventPublisher = (events: PetEvent[]) => Promise<void>;
