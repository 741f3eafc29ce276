import type { AuditEntryRow } from './audit.repository.js';
import type { AuditEventResponse } from './dto/audit-event-response.dto.js';

// Unset fields become undefined, which JSON leaves out (docs/api.md: never null).
export function toAuditEventResponse(row: AuditEntryRow): AuditEventResponse {
  return {
    id: row.id,
    occurredAt: new Date(row.occurredAt).toISOString(),
    action: row.action,
    outcome: row.outcome,
    actor: {
      userId: row.actorUserId ?? undefined,
      username: row.actorUsername ?? undefined,
      credential: row.actorCredential,
      apiKeyPrefix: row.actorApiKeyPrefix ?? undefined,
    },
    target:
      row.targetType !== null && row.targetId !== null
        ? { type: row.targetType, id: row.targetId }
        : undefined,
    changes: row.changes ?? undefined,
    ip: row.ip ?? undefined,
    userAgent: row.userAgent ?? undefined,
    requestId: row.requestId ?? undefined,
    clientRequestId: row.clientRequestId ?? undefined,
  };
}
