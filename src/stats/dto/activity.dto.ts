import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IntegerText } from '../../common/dto/transforms.js';
import { COUNT_SCHEMA } from '../../common/dto/count-schema.js';

export const MAX_ACTIVITY_DAYS = 90;

export class ActivityQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: MAX_ACTIVITY_DAYS,
    default: 30,
    description: 'How many UTC days, today included; out of range is 400, never clamped',
  })
  @IntegerText(1, MAX_ACTIVITY_DAYS)
  days: number = 30;
}

export class ActivityDayResponse {
  @ApiProperty({
    type: 'string',
    format: 'date',
    pattern: '^\\d{4}-\\d{2}-\\d{2}$',
    maxLength: 10,
    description: 'The UTC day, `YYYY-MM-DD`',
  })
  date: string;

  @ApiProperty({ ...COUNT_SCHEMA, description: 'Pets created that day' })
  petsCreated: number;

  @ApiProperty({ ...COUNT_SCHEMA, description: 'Pets whose status moved to sold that day' })
  petsSold: number;

  @ApiProperty({ ...COUNT_SCHEMA, description: 'Successful logins' })
  logins: number;

  @ApiProperty({ ...COUNT_SCHEMA, description: 'Refused logins' })
  failedLogins: number;

  @ApiProperty({ ...COUNT_SCHEMA, description: 'Webhook deliveries that succeeded that day' })
  deliveriesSucceeded: number;

  @ApiProperty({
    ...COUNT_SCHEMA,
    description: 'Webhook deliveries given up that day (after 24 hours of retries)',
  })
  deliveriesFailed: number;

  @ApiProperty({ ...COUNT_SCHEMA, description: 'Adoptions requested that day' })
  adoptionsRequested: number;

  @ApiProperty({
    ...COUNT_SCHEMA,
    description: 'Adoptions completed that day (also those returned since)',
  })
  adoptionsCompleted: number;

  @ApiProperty({
    ...COUNT_SCHEMA,
    description: 'Adoptions that expired that day (their hold passed undecided)',
  })
  adoptionsExpired: number;

  @ApiPropertyOptional({
    type: 'number',
    format: 'double',
    minimum: 0,
    maximum: 1_000_000,
    description:
      'The median time from request to completion, in hours (2 decimals), of the adoptions ' +
      'completed that day; left out on a day without completions',
  })
  adoptionMedianHoursToComplete?: number;
}

export class ActivityResponse {
  @ApiProperty({
    type: [ActivityDayResponse],
    minItems: 1,
    maxItems: MAX_ACTIVITY_DAYS,
    description: 'One entry per day, oldest first, today last; days without activity count 0',
  })
  days: ActivityDayResponse[];
}
