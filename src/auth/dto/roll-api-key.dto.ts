import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** docs/identity.md, "Expiry and rolling": how long a rolled key keeps working by default. */
export const DEFAULT_ROLL_GRACE_HOURS = 24;

export class RollApiKeyDto {
  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 0,
    maximum: 168,
    default: DEFAULT_ROLL_GRACE_HOURS,
    description: 'How many hours the old key keeps working; 0: it stops at once',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(168)
  expiresInHours?: number;
}
