import { ApiException } from '../common/errors/api-exception.js';

/** Where the next page of a pet's history starts, and the pet it was made for. */
export interface PetHistoryCursor {
  petId: number;
  /** The last event of the page read: the next page starts below it. */
  sequence: number;
  /** Position of the next page, reported back as `pagination.offset`. */
  offset: number;
}

export function encodeHistoryCursor({ petId, sequence, offset }: PetHistoryCursor): string {
  return Buffer.from(JSON.stringify([petId, sequence, offset])).toString('base64url');
}

const invalidCursor = (message: string) => ApiException.validation([{ field: 'cursor', message }]);

const isCount = (value: unknown, min: number): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= min;

function parseCursor(raw: string): PetHistoryCursor | undefined {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parts) || parts.length !== 3) return undefined;
  const [petId, sequence, offset] = parts as unknown[];
  if (!isCount(petId, 1) || !isCount(sequence, 1) || !isCount(offset, 0)) return undefined;
  return { petId, sequence, offset };
}

/** As decodeCursor in pet-cursor.ts: only the exact text encodeHistoryCursor writes. */
export function decodeHistoryCursor(
  raw: string,
  request: { petId: number; offset?: number },
): PetHistoryCursor {
  const cursor = parseCursor(raw);
  if (!cursor || encodeHistoryCursor(cursor) !== raw) throw invalidCursor('is malformed');
  if (request.offset !== undefined) throw invalidCursor('cannot be combined with offset');
  if (cursor.petId !== request.petId) throw invalidCursor('was issued for another pet');
  return cursor;
}
