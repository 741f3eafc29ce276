import {
  invalidCursor,
  isCount,
  pageCursor,
  type CursorSigner,
} from '../common/dto/page-cursor.js';

/** Where the next page of a pet's history starts, and the pet it was made for. */
export interface PetHistoryCursor {
  petId: number;
  /** The last event of the page read: the next page starts below it. */
  sequence: number;
  /** Position of the next page, reported back as `pagination.offset`. */
  offset: number;
}

const cursors = pageCursor<PetHistoryCursor>(
  'pet history',
  ({ petId, sequence, offset }) => [petId, sequence, offset],
  (parts) => {
    if (parts.length !== 3) return undefined;
    const [petId, sequence, offset] = parts;
    if (!isCount(petId, 1) || !isCount(sequence, 1) || !isCount(offset, 0)) return undefined;
    return { petId, sequence, offset };
  },
);

export const encodeHistoryCursor = cursors.encode;

export function decodeHistoryCursor(
  signer: CursorSigner,
  raw: string,
  request: { petId: number; offset?: number },
): PetHistoryCursor {
  const cursor = cursors.decode(signer, raw, request.offset);
  if (cursor.petId !== request.petId) throw invalidCursor('was issued for another pet');
  return cursor;
}
