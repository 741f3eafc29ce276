import type { PetStatus } from '../pet-status.js';

// Hand-written SQL on the hot paths (docs/performance.md): one round trip per request, rows
// mapped explicitly (no entity hydration, no to-many join that would break LIMIT).
/** A pet as the read queries return it: one row with its category and tags. */
export interface PetRow {
  id: number;
  name: string;
  status: PetStatus;
  photoUrls: string[];
  age: number | null;
  breed: string | null;
  description: string | null;
  /** Absent from the snapshots of events recorded before pets had one. */
  externalId?: string | null;
  createdAt: Date;
  updatedAt: Date;
  categoryId: number;
  categoryName: string;
  categoryDescription: string | null;
  tags: { id: number; name: string }[];
  /** The pet's ETag, unquoted (see `versionTag`). */
  versionTag: string;
  /**
   * The adoption the pet moved to `pending` through, while it stays there; absent from the
   * snapshots of events recorded before it was.
   */
  heldBy?: number | null;
}

/**
 * A pet's version tag: its row version and its category's, as the response embeds the
 * category (a rename changes the pet's representation too).
 */
const versionTag = (categoryVersion: string) => `p.version || '.' || ${categoryVersion}`;
export const CURRENT_VERSION_TAG = versionTag(
  '(SELECT version FROM categories WHERE id = p.category_id)',
);

/**
 * Tags `t` as a pet's `tag_list` holds them: the API's array, by name, written as
 * JSON.stringify writes it (the export copies the text into its lines). Over no tag, `[]`.
 * Every statement that writes a pet's links writes this beside them.
 */
export const TAG_LIST = `COALESCE(('[' || string_agg(concat('{"id":', t.id, ',"name":', to_json(t.name::text), '}'), ','
                                  ORDER BY t.name) || ']')::json, '[]')`;

/** The read shape's columns of pet `p` and category `c`. */
export const PET_COLUMNS = `
  p.id, p.name, p.status, p.photo_urls AS "photoUrls", p.age, p.breed, p.description,
  p.external_id AS "externalId", p.created_at AS "createdAt", p.updated_at AS "updatedAt", p.held_by AS "heldBy",
  c.id AS "categoryId", c.name AS "categoryName", c.description AS "categoryDescription",
  ${versionTag('c.version')} AS "versionTag", p.tag_list AS tags`;

/** What a failed conditional update reads to say why it failed. */
export interface PetState {
  status: PetStatus;
  versionTag: string;
}

/** One category's pets by status, as `inventory` reads them. */
export type InventoryRow = { id: number; name: string } & Record<PetStatus, number>;

/**
 * Pets by status in every category, by name, from the trigger-kept counters: one row per
 * category, whatever the number of pets, and one snapshot, so the counts agree.
 */
export const INVENTORY = `
  SELECT c.id, c.name,
         COALESCE(sum(pc.count) FILTER (WHERE pc.status = 'available'), 0)::int8 AS available,
         COALESCE(sum(pc.count) FILTER (WHERE pc.status = 'pending'), 0)::int8 AS pending,
         COALESCE(sum(pc.count) FILTER (WHERE pc.status = 'sold'), 0)::int8 AS sold
    FROM categories c LEFT JOIN pet_counts pc ON pc.category_id = c.id
   GROUP BY c.id
   ORDER BY c.name, c.id`;

export const SELECT_PET_BY_ID = `
  SELECT ${PET_COLUMNS}
    FROM pets p JOIN categories c ON c.id = p.category_id
   WHERE p.id = $1`;

/** The pets holding these externalIds (an import's look-up of a batch, or of its whole file). */
export const SELECT_PETS_BY_EXTERNAL_IDS = `
  SELECT ${PET_COLUMNS}
    FROM pets p JOIN categories c ON c.id = p.category_id
   WHERE p.external_id = ANY($1::text[])`;
