import { invalidCursor, isCount, pageCursor } from '../common/dto/page-cursor.js';

/** Where the next page starts, plus the filters it was made for. */
export interface PetCursor {
  createdAt: string;
  id: number;
  /** Position of the next page, reported back as `pagination.offset`. */
  offset: number;
  category: string | null;
  status: string | null;
}

// The form toISOString() writes, for the years PostgreSQL accepts (there is no year 0).
const ISO_TIMESTAMP = /^(?!0000)\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function isTimestamp(value: unknown): value is string {
  if (typeof value !== 'string' || !ISO_TIMESTAMP.test(value)) return false;
  const time = Date.parse(value);
  // Rules out dates that do not exist, such as month 13 or 31 April.
  return !Number.isNaN(time) && new Date(time).toISOString() === value;
}

const isNullableString = (value: unknown): value is string | null =>
  value === null || typeof value === 'string';

const cursors = pageCursor<PetCursor>(
  ({ createdAt, id, offset, category, status }) => [createdAt, id, offset, category, status],
  (parts) => {
    if (parts.length !== 5) return undefined;
    const [createdAt, id, offset, category, status] = parts;
    if (
      !isTimestamp(createdAt) ||
      !isCount(id, 1) ||
      !isCount(offset, 0) ||
      !isNullableString(category) ||
      !isNullableString(status)
    ) {
      return undefined;
    }
    return { createdAt, id, offset, category, status };
  },
);

export const encodeCursor = cursors.encode;

export function decodeCursor(
  raw: string,
  filters: { category?: string; status?: string; offset?: number },
): PetCursor {
  const cursor = cursors.decode(raw, filters.offset);
  if (
    (filters.category ?? null) !== cursor.category ||
    (filters.status ?? null) !== cursor.status
  ) {
    throw invalidCursor('was issued for other filters; repeat the same category and status');
  }
  return cursor;
}
