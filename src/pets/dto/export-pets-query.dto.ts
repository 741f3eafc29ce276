import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { PET_EXPORT_FORMATS, type PetExportFormat } from '../pet-export.js';
import { PetFiltersQueryDto } from './pet-filters-query.dto.js';

/** The filters of GET /pets, every one of them (a filter added there applies here), and a format. */
export class ExportPetsQueryDto extends PetFiltersQueryDto {
  @ApiPropertyOptional({
    enum: PET_EXPORT_FORMATS,
    default: 'ndjson',
    description: 'One pet’s JSON per line (`ndjson`), or a header row and a row per pet (`csv`)',
  })
  @IsIn(PET_EXPORT_FORMATS)
  format: PetExportFormat = 'ndjson';
}
