import type {
  DeliveryAttemptResponse,
  DeliveryDetailResponse,
  DeliveryResponse,
} from './dto/delivery-response.dto.js';
import type { AttemptRow, DeliveryRow } from './webhook-deliveries.repository.js';

// Unset fields become undefined, which JSON leaves out (docs/api.md: never null).
export function toDeliveryResponse(row: DeliveryRow): DeliveryResponse {
  return {
    id: row.id,
    eventId: row.eventId,
    eventType: row.eventType,
    petId: row.petId,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'pending' ? row.nextAttemptAt : undefined,
    createdAt: row.createdAt,
    completedAt: row.completedAt ?? undefined,
    lastAttempt: row.lastAttempt
      ? {
          attemptedAt: row.lastAttempt.attemptedAt,
          statusCode: row.lastAttempt.statusCode ?? undefined,
          durationMs: row.lastAttempt.durationMs,
          error: row.lastAttempt.error ?? undefined,
        }
      : undefined,
  };
}

export function toDeliveryDetailResponse(
  row: DeliveryRow,
  attempts: AttemptRow[],
): DeliveryDetailResponse {
  return { ...toDeliveryResponse(row), attemptLog: attempts.map(toAttemptResponse) };
}

function toAttemptResponse(attempt: AttemptRow): DeliveryAttemptResponse {
  return {
    attemptedAt: attempt.attemptedAt,
    statusCode: attempt.statusCode ?? undefined,
    durationMs: attempt.durationMs,
    error: attempt.error ?? undefined,
    responseBody: attempt.responseBody ?? undefined,
  };
}
