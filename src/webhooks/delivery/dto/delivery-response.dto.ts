import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { COUNT_SCHEMA } from '../../../common/dto/count-schema.js';
import { PaginationResponse } from '../../../common/dto/pagination-response.dto.js';
import { ApiIdProperty, ApiTextProperty, ApiTimestampProperty } from '../../../openapi/schemas.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../webhook-event-types.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../webhook-delivery.entity.js';

/** The attempts a delivery's detail lists, newest first. */
export const ATTEMPT_LOG_LENGTH = 50;

const STATUS_CODE_SCHEMA = {
  type: 'integer',
  format: 'int32',
  minimum: 100,
  maximum: 599,
} as const;
const DURATION_SCHEMA = {
  type: 'integer',
  format: 'int32',
  minimum: 0,
  maximum: 2_147_483_647,
} as const;

/** One POST of a delivery, as the delivery log lists it. */
class DeliveryAttemptSummary {
  @ApiTimestampProperty('When the attempt started (its `webhook-timestamp`)')
  attemptedAt: Date;

  @ApiPropertyOptional({
    ...STATUS_CODE_SCHEMA,
    description: 'The receiver’s status; absent when no response came',
  })
  statusCode?: number;

  @ApiProperty({ ...DURATION_SCHEMA, description: 'Milliseconds until the response or the error' })
  durationMs: number;

  @ApiTextProperty(1000, 'Why the attempt failed; absent after a 2xx', { required: false })
  error?: string;
}

export class DeliveryAttemptResponse extends DeliveryAttemptSummary {
  @ApiTextProperty(1024, 'The start of the response body (1 kB at most is kept)', {
    required: false,
  })
  responseBody?: string;
}

/** One event for one subscription: sent until acknowledged, or for 24 hours. */
export class DeliveryResponse {
  @ApiIdProperty('Delivery id')
  id: number;

  @ApiTextProperty(64, 'The event’s id, sent as `webhook-id` on every attempt')
  eventId: string;

  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES })
  eventType: WebhookEventType;

  @ApiIdProperty('The pet the event is about (an adoption event: the adoption’s pet)')
  petId: number;

  @ApiProperty({
    enum: DELIVERY_STATUSES,
    description:
      '`pending`: not yet acknowledged, another attempt is due; `succeeded`: a 2xx came back; ' +
      '`failed`: every attempt failed for 24 hours',
  })
  status: DeliveryStatus;

  @ApiProperty({ ...COUNT_SCHEMA, description: 'Attempts made so far' })
  attempts: number;

  @ApiTimestampProperty('When the next attempt is due; pending deliveries only', {
    required: false,
  })
  nextAttemptAt?: Date;

  @ApiTimestampProperty('When the event was queued for this subscription')
  createdAt: Date;

  @ApiTimestampProperty('When it succeeded or failed; absent while pending', { required: false })
  completedAt?: Date;

  @ApiPropertyOptional({ type: DeliveryAttemptSummary, description: 'Absent before the first' })
  lastAttempt?: DeliveryAttemptSummary;
}

export class DeliveryDetailResponse extends DeliveryResponse {
  @ApiProperty({
    type: [DeliveryAttemptResponse],
    maxItems: ATTEMPT_LOG_LENGTH,
    description: 'The latest attempts, newest first',
  })
  attemptLog: DeliveryAttemptResponse[];
}

export class DeliveryListResponse {
  @ApiProperty({ type: [DeliveryResponse], maxItems: 100, description: 'Newest first' })
  deliveries: DeliveryResponse[];

  @ApiProperty({ type: PaginationResponse })
  pagination: PaginationResponse;
}
