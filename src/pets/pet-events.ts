import type { DomainEventBase } from '../events/domain-event.js';
import type { Role } from '../common/types/principal.js';
import type { PetActor } from './pet-actor.js';
import type { PetStatus } from './pet-status.js';
import type { PetRow } from './sql/pet-reads.sql.js';

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
  'externalId',
  'tags',
] as const;
export type PetChangedField = (typeof PET_CHANGED_FIELDS)[number];

/** A pet as an event carries it: its PetRow, the dates as ISO strings (events are JSON). */
export type PetSnapshot = Omit<PetRow, 'createdAt' | 'updatedAt'> & {
  createdAt: string;
  updatedAt: string;
};

/**
 * A recorded change of a pet: a row of its history (`pet_events`), and the domain event its
 * write publishes (subject `pet:<id>`).
 */
export interface PetEvent extends DomainEventBase {
  type: PetEventType;
  /** Position in the log. For one pet, the order in which its changes committed. */
  sequence: number;
  /** Stable id (`evt_` + 32 hex), the same on every delivery (Standard Webhooks' `webhook-id`). */
  id: string;
  petId: number;
  /** ISO 8601, UTC. */
  occurredAt: string;
  /** Null for changes made outside the API (the seed script). */
  actorUserId: number | null;
  actorApiKeyPrefix: string | null;
  /** The actor's role then; null outside the API, absent from events published before it. */
  actorRole?: Role | null;
  /** `pet.updated`: the fields whose value changed. */
  changedFields: PetChangedField[] | null;
  /** `pet.status_changed`: the move. */
  statusFrom: PetStatus | null;
  statusTo: PetStatus | null;
  /** The adoption whose move made the change (pet.status_changed), else null. */
  adoptionId: number | null;
  /** The pet after the change; as it was, for `pet.deleted`. */
  pet: PetSnapshot;
}

declare module '../events/domain-event.js' {
  interface DomainEventMap {
    'pet.created': PetEvent;
    'pet.updated': PetEvent;
    'pet.status_changed': PetEvent;
    'pet.deleted': PetEvent;
    'pet.image_added': PetEvent;
  }
}

export const petSubject = (petId: number) => `pet:${petId}`;

/** What a write's `"recordedEvents"` column holds (pets/sql/pet-events.sql.ts). */
export type RecordedPetEvent = Pick<
  PetEvent,
  | 'sequence'
  | 'id'
  | 'type'
  | 'occurredAt'
  | 'changedFields'
  | 'statusFrom'
  | 'statusTo'
  | 'adoptionId'
>;

/** The events a write of `pet` by `actor` recorded, as published. */
export function petEventsOf(
  pet: PetRow,
  recorded: RecordedPetEvent[] | null,
  actor: PetActor,
): PetEvent[] {
  const snapshot: PetSnapshot = {
    ...pet,
    createdAt: pet.createdAt.toISOString(),
    updatedAt: pet.updatedAt.toISOString(),
  };
  return (recorded ?? []).map((event) => ({
    ...event,
    subject: petSubject(pet.id),
    occurredAt: new Date(event.occurredAt).toISOString(),
    petId: pet.id,
    actorUserId: actor.userId,
    actorApiKeyPrefix: actor.apiKeyPrefix,
    actorRole: actor.role ?? null,
    pet: snapshot,
  }));
}

/** The snapshot as the PetRow it was. */
export function petRowOfSnapshot(snapshot: PetSnapshot): PetRow {
  return {
    ...snapshot,
    createdAt: new Date(snapshot.createdAt),
    updatedAt: new Date(snapshot.updatedAt),
  };
}
