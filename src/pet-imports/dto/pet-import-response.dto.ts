import { ApiProperty } from '@nestjs/swagger';
import { MAX_IMPORT_ROWS } from '../../common/contract-limits.js';
import { ApiIdProperty, ApiTimestampProperty } from '../../openapi/schemas.js';
import {
  MAX_SHOWN_ERRORS,
  PET_IMPORT_MODES,
  PET_IMPORT_STATUSES,
  type PetImportMode,
  type PetImportStatus,
} from '../pet-import-status.js';

const COUNT = { type: 'integer', format: 'int32', minimum: 0, maximum: MAX_IMPORT_ROWS } as const;

export class PetImportAcceptedResponse {
  @ApiIdProperty('Import id')
  id: number;

  @ApiProperty({ enum: PET_IMPORT_STATUSES })
  status: PetImportStatus;

  @ApiProperty({ type: 'string', maxLength: 100, description: 'Where to follow the import' })
  statusUrl: string;
}

class PetImportCountsResponse {
  @ApiProperty({ ...COUNT, description: 'Rows of the file (0 until validated)' })
  rows: number;

  @ApiProperty({ ...COUNT, description: 'Rows without an error' })
  valid: number;

  @ApiProperty({ ...COUNT, description: 'Rows with at least one error; never applied' })
  invalid: number;

  @ApiProperty({ ...COUNT, description: 'Pets created (a dry run: that would be)' })
  created: number;

  @ApiProperty({ ...COUNT, description: 'Pets changed by an upsert (a dry run: that would be)' })
  updated: number;

  @ApiProperty({ ...COUNT, description: 'Pets an upsert found as their row says' })
  unchanged: number;
}

class PetImportErrorResponse {
  @ApiProperty({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: MAX_IMPORT_ROWS + 1,
    description: 'The row: 1 is the first pet (a CSV header row is not counted)',
  })
  row: number;

  @ApiProperty({
    type: 'string',
    maxLength: 100,
    description: 'The field, `row` for the whole row, `file` for the whole file',
  })
  field: string;

  @ApiProperty({ type: 'string', maxLength: 1000 })
  message: string;
}

export class PetImportResponse {
  @ApiIdProperty('Import id')
  id: number;

  @ApiProperty({ enum: PET_IMPORT_STATUSES })
  status: PetImportStatus;

  @ApiProperty({ enum: PET_IMPORT_MODES })
  mode: PetImportMode;

  @ApiProperty({ type: 'boolean' })
  dryRun: boolean;

  @ApiProperty({ type: PetImportCountsResponse })
  counts: PetImportCountsResponse;

  @ApiProperty({
    type: 'number',
    minimum: 0,
    maximum: 1,
    description: 'Share of the file’s rows done (applied or skipped); 1 once it succeeded',
  })
  progress: number;

  @ApiProperty({
    type: [PetImportErrorResponse],
    maxItems: MAX_SHOWN_ERRORS,
    description: `The first ${MAX_SHOWN_ERRORS} errors, by row`,
  })
  errors: PetImportErrorResponse[];

  @ApiTimestampProperty('When the import was asked for')
  createdAt: string;

  @ApiTimestampProperty('When it succeeded, failed or was cancelled', { required: false })
  finishedAt?: string;
}
