import { isCount, pageCursor, type CursorSigner } from '../common/dto/page-cursor.js';

/** Where the next (older) page of the audit log starts: below the last entry read. */
export interface AuditCursor {
  beforeId: number;
}

const cursors = pageCursor<AuditCursor>(
  'audit log',
  ({ beforeId }) => [beforeId],
  (parts) => {
    if (parts.length !== 1 || !isCount(parts[0], 1)) return undefined;
    return { beforeId: parts[0] };
  },
);

export const encodeAuditCursor = cursors.encode;
export const decodeAuditCursor = (signer: CursorSigner, raw: string): AuditCursor =>
  cursors.decode(signer, raw, undefined);
