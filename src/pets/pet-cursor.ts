import { createHash } from 'node:crypto';
import {
  invalidCursor,
  isCount,
  pageCursor,
  type CursorSigner,
} from '../common/dto/page-cursor.js';
import type { PetSort } from './pet-sort.js';
import type { PetFilters, SortKey } from './sql/pet-search.sql.js';

/** Where the next page starts, plus the filters and sort it was made for. */
export interface PetCursor {
  /** The last pet's value of the sort key (null: a pet without an age). */
  key: SortKey;
  id: number;
  /** Position of the next page, reported back as `pagination.offset`. */
  offset: number;
  /** `filtersTag` of the page's filters and sort. */
  filters: string;
}

// The form toISOString() writes, for the years PostgreSQL accepts (there is no year 0).
const ISO_TIMESTAMP = /^(?!0000)\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function isTimestamp(value: unknown): value is string {
  if (typeof value !== 'string' || !ISO_TIMESTAMP.test(value)) return false;
  const time = Date.parse(value);
  // Rules out dates that do not exist, such as month 13 or 31 April.
  return !Number.isNaN(time) && new Date(time).toISOString() === value;
}

/** Whether `key` is a value the sort's key can have. */
function isKeyOf(sort: PetSort, key: unknown): boolean {
  switch (sort) {
    case 'createdAt':
    case '-createdAt':
      return isTimestamp(key);
    case 'name':
    case '-name':
      return typeof key === 'string';
    case 'age':
    case '-age':
      return key === null || isCount(key, 0);
    case 'relevance':
      return typeof key === 'number' && Number.isFinite(key) && key >= 0;
  }
}

const FILTERS_TAG = /^[A-Za-z0-9_-]{22}$/;

/**
 * The filters and sort a cursor is bound to, as a short digest: the cursor stays short
 * whatever the query (a `q` of 200 characters, 10 tags), and tells any change apart.
 * Tags are a set, in any case and order.
 */
export function filtersTag(filters: PetFilters, sort: PetSort): string {
  const tags = [...new Set((filters.tags ?? []).map((tag) => tag.toLowerCase()))].sort();
  const canonical = [
    filters.category ?? null,
    filters.status ?? null,
    filters.q ?? null,
    tags,
    filters.breed ?? null,
    filters.minAge ?? null,
    filters.maxAge ?? null,
    filters.createdAfter ?? null,
    filters.createdBefore ?? null,
    sort,
    // Last and only when given, so that the cursors issued before it existed stay valid.
    ...(filters.externalId === undefined ? [] : [filters.externalId]),
  ];
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url').slice(0, 22);
}

const cursors = pageCursor<PetCursor>(
  'pets',
  ({ key, id, offset, filters }) => [key, id, offset, filters],
  (parts) => {
    if (parts.length !== 4) return undefined;
    const [key, id, offset, filters] = parts;
    if (
      !(key === null || typeof key === 'string' || typeof key === 'number') ||
      !isCount(id, 1) ||
      !isCount(offset, 0) ||
      typeof filters !== 'string' ||
      !FILTERS_TAG.test(filters)
    ) {
      return undefined;
    }
    return { key, id, offset, filters };
  },
);

export const encodeCursor = cursors.encode;

/** The cursor, if it was issued for these filters and this sort (400 otherwise). */
export function decodeCursor(
  signer: CursorSigner,
  raw: string,
  filters: PetFilters & { offset?: number },
  sort: PetSort,
): PetCursor {
  const cursor = cursors.decode(signer, raw, filters.offset);
  if (cursor.filters !== filtersTag(filters, sort)) {
    throw invalidCursor('was issued for other filters or another sort; repeat the same ones');
  }
  // Bound to this sort, so a key of another type is forged.
  if (!isKeyOf(sort, cursor.key)) throw invalidCursor('is malformed');
  return cursor;
}
