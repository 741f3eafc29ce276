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

export function decodeCursor(
  raw: string,
  filters: { category?: string; status?: string; offset?: number },
): PetCursor {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor('is malformed');
  }
  if (
    !Array.isArray(parts) ||
    parts.length !== 5 ||
    typeof parts[0] !== 'string' ||
    Number.isNaN(Date.parse(parts[0])) ||
    !Number.isSafeInteger(parts[1]) ||
    !Number.isSafeInteger(parts[2]) ||
    !(parts[3] === null || typeof parts[3] === 'string') ||
    !(parts[4] === null || typeof parts[4] === 'string')
  ) {
    throw invalidCursor('is malformed');
  }
  const [createdAt, id, offset, category, status] = parts as [
    string,
    number,
    number,
    string | null,
    string | null,
  ];
  if (filters.offset !== undefined) throw invalidCursor('cannot be combined with offset');
  if ((filters.category ?? null) !== category || (filters.status ?? null) !== status) {
    throw invalidCursor('was issued for other filters; repeat the same category and status');
  }
  return { createdAt, id, offset, category, status };
}
