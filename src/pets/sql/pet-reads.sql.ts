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
  createdAt: Date;
  updatedAt: Date;
  categoryId: number;
  categoryName: string;
  categoryDescription: string | null;
  tags: { id: number; name: string }[];
  /** The pet's ETag, unquoted (see `versionTag`). */
  versionTag: string;
}

/**
 * A pet's version tag: its row version and its category's, as the response embeds the
 * category (a rename changes the pet's representation too).
 */
const versionTag = (categoryVersion: string) => `p.version || '.' || ${categoryVersion}`;
export const CURRENT_VERSION_TAG = versionTag(
  '(SELECT version FROM categories WHERE id = p.category_id)',
);

/** The read shape's columns of pet `p` and category `c`, its tags read from `tagsFrom` (as `t`). */
export const petColumns = (tagsFrom: string) => `
  p.id, p.name, p.status, p.photo_urls AS "photoUrls", p.age, p.breed, p.description,
  p.created_at AS "createdAt", p.updated_at AS "updatedAt",
  c.id AS "categoryId", c.name AS "categoryName", c.description AS "categoryDescription",
  ${versionTag('c.version')} AS "versionTag",
  COALESCE((SELECT json_agg(json_build_object('id', t.id, 'name', t.name) ORDER BY t.name)
              FROM ${tagsFrom}), '[]') AS tags`;

export const PET_COLUMNS = petColumns(
  'pet_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.pet_id = p.id',
);

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

export interface PetListFilters {
  category?: string;
  status?: PetStatus;
  limit: number;
  offset: number;
  after?: { createdAt: string; id: number };
}

/**
 * The page and the exact total in one statement: `total` is an uncorrelated sub-select
 * (evaluated once) over the per-(category, status) counters that triggers keep.
 */
export function listPetsQuery(filters: PetListFilters): {
  sql: string;
  params: unknown[];
  countSql: string;
  countParams: unknown[];
} {
  const params: unknown[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  const petWhere: string[] = [];
  const countWhere: string[] = [];
  if (filters.category !== undefined) {
    const category = `(SELECT id FROM categories WHERE lower(name) = lower(${param(filters.category)}))`;
    petWhere.push(`p.category_id = ${category}`);
    countWhere.push(`category_id = ${category}`);
  }
  if (filters.status !== undefined) {
    const status = `${param(filters.status)}::pet_status`;
    petWhere.push(`p.status = ${status}`);
    countWhere.push(`status = ${status}`);
  }
  const countSql = `SELECT COALESCE(sum(count), 0)::int8 AS total FROM pet_counts${where(countWhere)}`;
  const countParams = [...params];
  if (filters.after) {
    petWhere.push(
      `(p.created_at, p.id) < (${param(filters.after.createdAt)}::timestamptz, ${param(filters.after.id)}::int8)`,
    );
  }
  // The page is cut in a sub-query first: in one query, the tag sub-select and the join ran
  // for every row OFFSET skips too (776 ms instead of 5 ms at offset 10,000).
  const order = 'ORDER BY p.created_at DESC, p.id DESC';
  const sql = `
    SELECT ${PET_COLUMNS}, (${countSql}) AS total
      FROM (SELECT * FROM pets p${where(petWhere)}
             ${order}
             LIMIT ${param(filters.limit)}${filters.after ? '' : ` OFFSET ${param(filters.offset)}`}) p
      JOIN categories c ON c.id = p.category_id
     ${order}`;
  return { sql, params, countSql, countParams };
}

const where = (conditions: string[]) =>
  conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '';
