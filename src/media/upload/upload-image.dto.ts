import { ApiPropertyOptional, type SchemaObject } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

/** The text fields of the upload form; the file itself arrives through multer. */
export class UploadImageDto {
  @ApiPropertyOptional({ type: 'string', maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string;
}

const MAX_UPLOAD_BYTES = 5 * 1024 * 1024;

/** The whole multipart form as documented: the `image` file part and the text fields. */
export const UPLOAD_IMAGE_FORM_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['image'],
  additionalProperties: false,
  properties: {
    image: {
      type: 'string',
      format: 'binary',
      maxLength: MAX_UPLOAD_BYTES,
      description:
        'JPEG, PNG or GIF, decided by its bytes (file name and part type are ignored); at most ' +
        '5 MB (5,242,880 bytes) and 40 megapixels',
    },
    description: { type: 'string', maxLength: 500, description: 'Optional caption' },
  },
};
