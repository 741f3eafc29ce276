import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { COUNT_SCHEMA } from '../../common/dto/count-schema.js';
import { WINDOWS, type Tier, type WindowName } from '../caller.js';

const INT32_MAX = 2_147_483_647;
const TIERS: Tier[] = ['api-key', 'user', 'anonymous'];

export class WindowStateResponse {
  @ApiProperty({ enum: Object.keys(WINDOWS) })
  window: WindowName;

  @ApiProperty({ type: 'integer', format: 'int32', minimum: 0, maximum: INT32_MAX })
  limit: number;

  @ApiProperty({ type: 'integer', format: 'int32', minimum: 0, maximum: INT32_MAX })
  remaining: number;

  @ApiProperty({ ...COUNT_SCHEMA, description: 'Unix time in seconds when the window resets' })
  reset: number;

  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: 3600,
    description: 'Seconds to wait; present when this window is exhausted',
  })
  retryAfter?: number;
}

export class CallerBudgetResponse {
  @ApiProperty({ enum: TIERS, description: 'Whose budget: the API key, the user, or the address' })
  tier: Tier;

  @ApiProperty({ type: [WindowStateResponse], maxItems: 2, description: 'hour and minute' })
  windows: WindowStateResponse[];
}
