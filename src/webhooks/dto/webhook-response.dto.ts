import { ApiProperty } from '@nestjs/swagger';
import { PaginationResponse } from '../../common/dto/pagination-response.dto.js';
import {
  ApiIdProperty,
  ApiTextProperty,
  ApiTimestampProperty,
  URL_SCHEMA,
} from '../../openapi/schemas.js';
import type { WebhookEventType } from '../webhook-event-types.js';
import { EVENT_TYPES_SCHEMA } from './create-webhook.dto.js';
import { WebhookFiltersDto } from './webhook-filters.dto.js';

/** `whsec_` and the base64 of 32 random bytes (Standard Webhooks' secret format). */
const WEBHOOK_SECRET_PATTERN = '^whsec_[A-Za-z0-9+/]{43}=$';

export class WebhookOwnerResponse {
  @ApiIdProperty('User id')
  id: number;

  @ApiTextProperty(32, 'Username')
  username: string;
}

/** A subscription as its owner and admins read it: never its secrets. */
export class WebhookResponse {
  @ApiIdProperty('Webhook id')
  id: number;

  @ApiProperty({
    type: WebhookOwnerResponse,
    required: false,
    description:
      'The account it belongs to, which manages it with the admins; absent for the store’s ' +
      'own (made before subscriptions had owners), which only admins see',
  })
  owner?: WebhookOwnerResponse;

  @ApiProperty({ ...URL_SCHEMA, description: 'Where events are POSTed' })
  url: string;

  @ApiProperty({ ...EVENT_TYPES_SCHEMA, description: 'The event types sent to this URL' })
  events: WebhookEventType[];

  @ApiProperty({
    type: WebhookFiltersDto,
    required: false,
    description: 'What narrows its pet events; absent when nothing does',
  })
  filters?: WebhookFiltersDto;

  @ApiTextProperty(500, 'Description; absent when not set', { required: false })
  description?: string;

  @ApiProperty({ description: 'false: nothing is sent; pending deliveries wait' })
  enabled: boolean;

  @ApiTextProperty(
    500,
    'Why the service disabled it (every delivery failed for 24 hours); absent otherwise, and ' +
      'cleared by setting enabled to true',
    { required: false },
  )
  disabledReason?: string;

  @ApiTimestampProperty(
    'After a rotation: until when deliveries are also signed with the previous secret; ' +
      'absent when no previous secret signs any more',
    { required: false },
  )
  previousSecretExpiresAt?: Date;

  @ApiTimestampProperty('Creation time; only events after it are delivered')
  createdAt: Date;

  @ApiTimestampProperty('Last change')
  updatedAt: Date;
}

/** Creation and rotation: the subscription and its (new) signing secret. */
export class WebhookWithSecretResponse extends WebhookResponse {
  @ApiTextProperty(
    50,
    'The signing secret: shown in this response only, store it now. Never in a replay ' +
      '(`Idempotent-Replayed: true`): rotate the secret if the first response was lost.',
    { pattern: WEBHOOK_SECRET_PATTERN, required: false },
  )
  secret?: string;
}

export class WebhookListResponse {
  @ApiProperty({ type: [WebhookResponse], maxItems: 100, description: 'Newest first' })
  webhooks: WebhookResponse[];

  @ApiProperty({ type: PaginationResponse })
  pagination: PaginationResponse;
}
