import { Check, Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { ROLES, type Role } from '../common/types/principal.js';
import { PET_EVENT_TYPES, type PetEventType } from './pet-events.js';
import { PET_STATUSES, type PetStatus } from './pet-status.js';
import type { PetRow } from './sql/pet-reads.sql.js';

/**
 * One recorded change of a pet, a row of its history (see PetEvent). Written only by
 * PetsRepository, in the statement or transaction of the change itself. No foreign key to
 * `pets`: the history outlives the pet.
 */
@Entity({ name: 'pet_events' })
// A pet's history, newest first (scanned backwards).
@Index('IDX_pet_events_pet', ['petId', 'sequence'])
@Check('CHK_pet_events_type', `"type" IN (${PET_EVENT_TYPES.map((t) => `'${t}'`).join(', ')})`)
export class PetEventRecord {
  /** Commit order for each pet: a pet's second write waits on its row lock for the first. */
  @PrimaryGeneratedColumn('increment', {
    type: 'bigint',
    primaryKeyConstraintName: 'PK_pet_events',
  })
  sequence: number;

  /** Public and stable (`evt_` + 32 hex), the same on every delivery. */
  @Column({ type: 'text' })
  id: string;

  @Column({ name: 'pet_id', type: 'bigint' })
  petId: number;

  @Column({ type: 'text' })
  type: PetEventType;

  @Column({ name: 'occurred_at', type: 'timestamptz', precision: 3 })
  occurredAt: Date;

  /** Null for changes made outside the API (the seed script). */
  @Column({ name: 'actor_user_id', type: 'bigint', nullable: true })
  actorUserId: number | null;

  /** The API key's display prefix when the change was made with a key. */
  @Column({ name: 'actor_api_key_prefix', type: 'text', nullable: true })
  actorApiKeyPrefix: string | null;

  /** The actor's role then; null outside the API (and for staff's changes recorded before it). */
  @Column({ name: 'actor_role', type: 'enum', enum: ROLES, enumName: 'user_role', nullable: true })
  actorRole: Role | null;

  /** For `pet.updated`: the request's fields whose value changed. */
  @Column({ name: 'changed_fields', type: 'text', array: true, nullable: true })
  changedFields: string[] | null;

  /** For `pet.status_changed`. */
  @Column({
    name: 'status_from',
    type: 'enum',
    enum: PET_STATUSES,
    enumName: 'pet_status',
    nullable: true,
  })
  statusFrom: PetStatus | null;

  @Column({
    name: 'status_to',
    type: 'enum',
    enum: PET_STATUSES,
    enumName: 'pet_status',
    nullable: true,
  })
  statusTo: PetStatus | null;

  /** The adoption whose move made the change; kept when the adoption is gone. */
  @Column({ name: 'adoption_id', type: 'bigint', nullable: true })
  adoptionId: number | null;

  /** The pet after the change (before it, for a deletion), as a PetRow: see toPetResponse. */
  @Column({ type: 'jsonb' })
  pet: PetRow;
}
