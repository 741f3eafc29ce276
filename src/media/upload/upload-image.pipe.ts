import { Injectable, PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { ApiException } from '../../common/errors/api-exception.js';
import { toFieldErrors } from '../../common/errors/validation-errors.js';
import { unsafeInputErrors } from '../../common/pipes/safe-input.pipe.js';
import { UploadImageDto } from './upload-image.dto.js';
import type { UploadForm } from './upload-form.js';

export interface ImageUpload {
  image: Buffer;
  description?: string;
}

/**
 * Validates the text fields like any body (unknown fields refused) and the file's presence
 * in the same pass, so that one 400 lists every failing field.
 */
@Injectable()
export class UploadImagePipe implements PipeTransform<UploadForm, Promise<ImageUpload>> {
  async transform({ fields, file }: UploadForm): Promise<ImageUpload> {
    // The global SafeInputPipe sees JSON bodies only: the form's fields get the same check.
    const unsafe = unsafeInputErrors(fields);
    if (unsafe.length > 0) throw ApiException.validation(unsafe);
    const dto = plainToInstance(UploadImageDto, { ...fields });
    const errors = toFieldErrors(
      await validate(dto, { whitelist: true, forbidNonWhitelisted: true }),
    );
    if (!file) errors.unshift({ field: 'image', message: 'image is required (a file part)' });
    if (errors.length > 0) throw ApiException.validation(errors);
    return { image: file!.buffer, description: dto.description };
  }
}
