/*
 * How another module takes part in a pet's writes without pets depending on it: the module
 * registers a hook with PetsService at start-up (media does, in MediaService.onModuleInit).
 * A hook runs inside the write's transaction (its repositories join it) and registers with
 * `afterCommit` (database/transactions.ts) the work to do once that transaction has
 * committed, such as deleting files: nothing outside the database is touched for a write
 * that rolls back. docs/media.md, "Pets and media", has the story.
 */

/** Runs when a pet is deleted: after its row is locked `FOR UPDATE`, before it goes. */
export type PetRemovalHook = (petId: number) => Promise<void>;

/** Runs when a PUT replaces a pet's photoUrls, after the update, with the URLs kept. */
export type PhotoUrlsReplacedHook = (petId: number, photoUrls: string[]) => Promise<void>;
