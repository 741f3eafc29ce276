import { ApiPropertyOptional, type SchemaObject } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { MAX_IMAGE_BYTES } from '../../common/contract-limits.js';

/** The text fields of the upload form; the file itself arrives through multer. */
export class UploadImageDto {
  @ApiPropertyOptional({ type: 'string', maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string;
}

/** The whole multipart form as documented: the `image` file part and the text fields. */
export const UPLOAD_IMAGE_FORM_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['image'],
  additionalProperties: false,
  properties: {
    image: {
      type: 'string',
      format: 'binary',
      maxLength: MAX_IMAGE_BYTES,
      description:
        'JPEG, PNG or GIF, decided by its bytes (file name and part type are ignored); at most ' +
        `${MAX_IMAGE_BYTES / 2 ** 20} MB (${MAX_IMAGE_BYTES.toLocaleString('en-US')} bytes) and 40 megapixels`,
    },
    description: { type: 'string', maxLength: 500, description: 'Optional caption' },
  },
};
