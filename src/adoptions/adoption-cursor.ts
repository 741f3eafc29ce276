import { isCount, pageCursor, type CursorSigner } from '../common/dto/page-cursor.js';

/** Where the next (older) page of adoptions starts: below the last one read. */
interface AdoptionCursor {
  beforeId: number;
}

const cursors = pageCursor<AdoptionCursor>(
  'adoptions',
  ({ beforeId }) => [beforeId],
  (parts) => {
    if (parts.length !== 1 || !isCount(parts[0], 1)) return undefined;
    return { beforeId: parts[0] };
  },
);

export const encodeAdoptionCursor = cursors.encode;
export const decodeAdoptionCursor = (signer: CursorSigner, raw: string): AdoptionCursor =>
  cursors.decode(signer, raw, undefined);
