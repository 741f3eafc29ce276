import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { OptionalText } from '../../common/dto/optional.js';
import { URL_SCHEMA } from '../../openapi/schemas.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../webhook-event-types.js';
import { WebhookFiltersDto } from './webhook-filters.dto.js';

export const EVENT_TYPES_SCHEMA: ApiPropertyOptions = {
  type: 'array',
  items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
  minItems: 1,
  maxItems: WEBHOOK_EVENT_TYPES.length,
  uniqueItems: true,
};

export class CreateWebhookDto {
  @ApiProperty({
    ...URL_SCHEMA,
    description:
      'Where events are POSTed: an absolute http or https URL without user:password. Its host ' +
      'must resolve, and only to public addresses (400 on url otherwise)',
  })
  @IsString()
  @MaxLength(URL_SCHEMA.maxLength)
  @IsUrl(
    {
      protocols: ['http', 'https'],
      require_protocol: true,
      require_tld: false,
      disallow_auth: true,
    },
    { message: 'url must be an absolute http or https URL without user:password' },
  )
  url: string;

  @ApiProperty({ ...EVENT_TYPES_SCHEMA, description: 'The event types sent to this URL' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length)
  @ArrayUnique({ message: 'events must not list a type twice' })
  @IsIn(WEBHOOK_EVENT_TYPES, {
    each: true,
    message: `each value in events must be one of: ${WEBHOOK_EVENT_TYPES.join(', ')}`,
  })
  events: WebhookEventType[];

  @OptionalText(500)
  description?: string | null;

  @ApiPropertyOptional({
    type: WebhookFiltersDto,
    nullable: true,
    description:
      'Narrows the pet events sent (adoption events are not filtered): a pet event is sent ' +
      'when every filter given matches. null: none (on update, clears them)',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => WebhookFiltersDto)
  filters?: WebhookFiltersDto | null;
}
