import { ApiException } from '../common/errors/api-exception.js';

/** Where the next page starts, plus the filters it was made for. */
export interface PetCursor {
  createdAt: string;
  id: number;
  /** Position of the next page, reported back as `pagination.offset`. */
  offset: number;
  category: string | null;
  status: string | null;
}

export function encodeCursor(cursor: PetCursor): string {
  const { createdAt, id, offset, category, status } = cursor;
  return Buffer.from(JSON.stringify([createdAt, id, offset, category, status])).toString(
    'base64url',
  );
}

const invalidCursor = (message: string) => ApiException.validation([{ field: 'cursor', message }]);

// The form toISOString() writes, for the years PostgreSQL accepts (there is no year 0).
const ISO_TIMESTAMP = /^(?!0000)\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function isTimestamp(value: unknown): value is string {
  if (typeof value !== 'string' || !ISO_TIMESTAMP.test(value)) return false;
  const time = Date.parse(value);
  // Rules out dates that do not exist, such as month 13 or 31 April.
  return !Number.isNaN(time) && new Date(time).toISOString() === value;
}

const isCount = (value: unknown, min: number): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= min;

const isNullableString = (value: unknown): value is string | null =>
  value === null || typeof value === 'string';

function parseCursor(raw: string): PetCursor | undefined {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parts) || parts.length !== 5) return undefined;
  const [createdAt, id, offset, category, status] = parts as unknown[];
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
}

export function decodeCursor(
  raw: string,
  filters: { category?: string; status?: string; offset?: number },
): PetCursor {
  const cursor = parseCursor(raw);
  // Only the exact text encodeCursor writes is a cursor (no padding, spacing or other
  // spellings of the same values): anything forged is refused here, not by the database.
  if (!cursor || encodeCursor(cursor) !== raw) throw invalidCursor('is malformed');
  if (filters.offset !== undefined) throw invalidCursor('cannot be combined with offset');
  if (
    (filters.category ?? null) !== cursor.category ||
    (filters.status ?? null) !== cursor.status
  ) {
    throw invalidCursor('was issued for other filters; repeat the same category and status');
  }
  return cursor;
}
