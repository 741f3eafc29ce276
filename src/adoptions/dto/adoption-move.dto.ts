import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** The optional body of a move: why it was made. */
export class AdoptionMoveDto {
  @ApiPropertyOptional({ type: 'string', maxLength: 500, description: 'Why; kept on the adoption' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;
}

export class ExtendAdoptionDto extends AdoptionMoveDto {
  @ApiProperty({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: 168,
    description: 'Hours added to the hold',
  })
  @IsInt()
  @Min(1)
  @Max(168)
  hours: number;
}
