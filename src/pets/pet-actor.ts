import type { Principal, Role } from '../common/types/principal.js';

/** Who made a change of a pet, as its history records it. */
export interface PetActor {
  /** Null for the changes the service makes by itself (NO_ACTOR). */
  userId: number | null;
  /** The API key's display prefix when the change was made with a key. */
  apiKeyPrefix: string | null;
  /**
   * The role the user had: a customer's own adoption moves are the only customer changes, and
   * the history names them so (pet.mapper.ts). Absent for the service's own changes.
   */
  role?: Role;
  /** The adoption the change was made through (its move of the pet's status), if any. */
  adoptionId?: number;
}

export const actorOf = (principal: Principal): PetActor => ({
  userId: principal.userId,
  apiKeyPrefix: principal.apiKeyPrefix ?? null,
  role: principal.role,
});

/**
 * The actor of the changes the service makes by itself, which no request made: a hold's
 * expiry, and the cancel of a deleted adopter's open adoptions (the deletion is audited with
 * its admin). The history shows it as `{ role: "system" }`.
 */
export const NO_ACTOR: PetActor = { userId: null, apiKeyPrefix: null };
