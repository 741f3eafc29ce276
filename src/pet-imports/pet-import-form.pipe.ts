import { extname } from 'node:path';
import { Injectable, PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { ApiException } from '../common/errors/api-exception.js';
import { toFieldErrors } from '../common/errors/validation-errors.js';
import { unsafeInputErrors } from '../common/pipes/safe-input.pipe.js';
import type { UploadForm } from '../media/upload/import-file.decorator.js';
import { PetImportFormDto } from './dto/pet-import-form.dto.js';
import type { PetImportFormat, PetImportMode } from './pet-import-status.js';

export interface PetImportRequest {
  file: Buffer;
  format: PetImportFormat;
  mode: PetImportMode;
  dryRun: boolean;
}

const FORMAT_OF_TYPE: Record<string, PetImportFormat> = {
  'text/csv': 'csv',
  'application/x-ndjson': 'ndjson',
  'application/ndjson': 'ndjson',
  'application/jsonl': 'ndjson',
  'application/x-jsonlines': 'ndjson',
};
const FORMAT_OF_EXTENSION: Record<string, PetImportFormat> = {
  '.csv': 'csv',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
};

/**
 * Validates the text fields like any body (unknown fields refused) and the file's presence
 * in one pass, then tells the file's format by its part's type, or else its name (415 when
 * neither says CSV or NDJSON).
 */
@Injectable()
export class PetImportFormPipe implements PipeTransform<UploadForm, Promise<PetImportRequest>> {
  async transform({ fields, file }: UploadForm): Promise<PetImportRequest> {
    const unsafe = unsafeInputErrors(fields);
    if (unsafe.length > 0) throw ApiException.validation(unsafe);
    const dto = plainToInstance(PetImportFormDto, { ...fields });
    const errors = toFieldErrors(
      await validate(dto, { whitelist: true, forbidNonWhitelisted: true }),
    );
    if (!file) errors.unshift({ field: 'file', message: 'file is required (a file part)' });
    if (errors.length > 0 || !file) throw ApiException.validation(errors);
    const type = file.mimetype.split(';')[0].trim().toLowerCase();
    const format =
      FORMAT_OF_TYPE[type] ?? FORMAT_OF_EXTENSION[extname(file.originalname).toLowerCase()];
    if (!format) {
      throw new ApiException(
        'UNSUPPORTED_MEDIA_TYPE',
        'An import file is CSV (text/csv, .csv) or NDJSON (application/x-ndjson, .ndjson)',
        { field: 'file' },
      );
    }
    return { file: file.buffer, format, mode: dto.mode ?? 'create', dryRun: dto.dryRun === 'true' };
  }
}
