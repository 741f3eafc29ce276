import type { PetStatus } from './pet-status.js';

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
}

// Hand-written SQL on the hot paths: one round trip per request, rows mapped explicitly
// (no entity hydration, no to-many join that would break LIMIT).
const PET_COLUMNS = `
  p.id, p.name, p.status, p.photo_urls AS "photoUrls", p.age, p.breed, p.description,
  p.created_at AS "createdAt", p.updated_at AS "updatedAt",
  c.id AS "categoryId", c.name AS "categoryName", c.description AS "categoryDescription",
  COALESCE((SELECT json_agg(json_build_object('id', t.id, 'name', t.name) ORDER BY t.name)
              FROM pet_tags pt JOIN tags t ON t.id = pt.tag_id
             WHERE pt.pet_id = p.id), '[]') AS tags`;

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
  const sql = `
    SELECT ${PET_COLUMNS}, (${countSql}) AS total
      FROM pets p JOIN categories c ON c.id = p.category_id${where(petWhere)}
     ORDER BY p.created_at DESC, p.id DESC
     LIMIT ${param(filters.limit)}${filters.after ? '' : ` OFFSET ${param(filters.offset)}`}`;
  return { sql, params, countSql, countParams };
}

const where = (conditions: string[]) =>
  conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '';

/** Request fields as columns, in one place for INSERT and UPDATE. */
const WRITE_COLUMNS = {
  name: 'name',
  categoryId: 'category_id',
  status: 'status',
  photoUrls: 'photo_urls',
  age: 'age',
  breed: 'breed',
  description: 'description',
} as const;
export type PetWriteFields = Partial<Record<keyof typeof WRITE_COLUMNS, unknown>>;

/** Reads back what the preceding `changed` CTE wrote, in the read shape, same statement. */
const selectChanged = (ctes: string) => `
  WITH ${ctes}
  SELECT ${PET_COLUMNS} FROM changed p JOIN categories c ON c.id = p.category_id`;

export function insertPetQuery(fields: PetWriteFields): { sql: string; params: unknown[] } {
  const entries = Object.entries(fields).filter(([, value]) => value !== undefined);
  const columns = entries.map(([field]) => WRITE_COLUMNS[field as keyof typeof WRITE_COLUMNS]);
  const sql = selectChanged(
    `changed AS (INSERT INTO pets (${columns.join(', ')})
                 VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING *)`,
  );
  return { sql, params: entries.map(([, value]) => value) };
}

/**
 * One statement. With `fromStatuses` the update is conditional on the status read at its
 * start (`before`): when another move commits first, PostgreSQL re-checks the row, finds
 * a different status and updates nothing, so two moves from one status cannot both win.
 */
export function updatePetQuery(
  id: string,
  fields: PetWriteFields,
  fromStatuses?: readonly PetStatus[],
): { sql: string; params: unknown[] } {
  const params: unknown[] = [id];
  const param = (value: unknown) => `$${params.push(value)}`;
  const assignments = Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(
      ([field, value]) => `${WRITE_COLUMNS[field as keyof typeof WRITE_COLUMNS]} = ${param(value)}`,
    );
  assignments.push('updated_at = clock_timestamp()');
  const set = assignments.join(', ');
  if (!fromStatuses) {
    return {
      sql: selectChanged(`changed AS (UPDATE pets SET ${set} WHERE id = $1 RETURNING *)`),
      params,
    };
  }
  const sql = selectChanged(`
    before AS (SELECT status FROM pets WHERE id = $1),
    changed AS (UPDATE pets p SET ${set} FROM before
                 WHERE p.id = $1 AND p.status = before.status
                   AND before.status = ANY(${param(fromStatuses)}::pet_status[])
                RETURNING p.*)`);
  return { sql, params };
}
