import { ApiPropertyOptional, type SchemaObject } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { MAX_IMPORT_BYTES, MAX_IMPORT_ROWS } from '../../common/contract-limits.js';
import { PET_IMPORT_MODES, type PetImportMode } from '../pet-import-status.js';

/** The text fields of the import form; the file itself arrives through multer. */
export class PetImportFormDto {
  @ApiPropertyOptional({ enum: PET_IMPORT_MODES, default: 'create' })
  @IsOptional()
  @IsIn(PET_IMPORT_MODES)
  mode?: PetImportMode;

  @ApiPropertyOptional({ type: 'string', enum: ['true', 'false'], default: 'false' })
  @IsOptional()
  @IsIn(['true', 'false'])
  dryRun?: 'true' | 'false';
}

/** The whole multipart form as documented: the `file` part and the text fields. */
export const PET_IMPORT_FORM_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['file'],
  additionalProperties: false,
  properties: {
    file: {
      type: 'string',
      format: 'binary',
      maxLength: MAX_IMPORT_BYTES,
      description:
        'CSV with a header row (UTF-8, a BOM allowed; tags and photoUrls joined with `|`) or ' +
        'NDJSON (one pet a line), told apart by the part’s type (`text/csv`, ' +
        '`application/x-ndjson`) or else its name (`.csv`, `.ndjson`, `.jsonl`); at most ' +
        `${MAX_IMPORT_BYTES / 2 ** 20} MB and ${MAX_IMPORT_ROWS.toLocaleString('en-US')} rows`,
    },
    mode: {
      type: 'string',
      enum: [...PET_IMPORT_MODES],
      default: 'create',
      description: 'create: every row a new pet; upsert: rows matched to pets by externalId',
    },
    dryRun: {
      type: 'string',
      enum: ['true', 'false'],
      default: 'false',
      description: 'true: validate and count only; nothing changes',
    },
  },
};
