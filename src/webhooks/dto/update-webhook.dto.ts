import { ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';
import { IsOptionalNotNull } from '../../common/dto/optional.js';
import { CreateWebhookDto } from './create-webhook.dto.js';

// skipNullProperties: false keeps `null` from slipping past url and events; description
// still accepts null to clear it.
export class UpdateWebhookDto extends PartialType(CreateWebhookDto, { skipNullProperties: false }) {
  @ApiPropertyOptional({
    type: 'boolean',
    description:
      'false stops deliveries (pending ones wait); true resumes them and clears disabledReason',
  })
  @IsOptionalNotNull()
  @IsBoolean()
  enabled?: boolean;
}
