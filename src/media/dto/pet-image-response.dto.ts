import { ApiProperty } from '@nestjs/swagger';
import { MAX_PHOTO_URLS } from '../../common/contract-limits.js';
import {
  ApiIdProperty,
  ApiTextProperty,
  ApiTimestampProperty,
  URL_SCHEMA,
} from '../../openapi/schemas.js';
import { IMAGE_FORMATS, type ImageFormat } from '../processing/image-format.js';

const INT32_MAX = 2_147_483_647;

export class PetImageResponse {
  @ApiIdProperty('Image id')
  id: number;

  @ApiProperty({ ...URL_SCHEMA, description: 'The main rendition (within 1024×1024)' })
  url: string;

  @ApiProperty({ ...URL_SCHEMA, description: 'The thumbnail (within 256×256)' })
  thumbnailUrl: string;

  @ApiTextProperty(500, 'Caption given at upload; absent when none was', { required: false })
  description?: string;

  @ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum: 1024 })
  width: number;

  @ApiProperty({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: 1024,
    description: 'Of one frame for an animated GIF',
  })
  height: number;

  @ApiProperty({ enum: IMAGE_FORMATS })
  format: ImageFormat;

  @ApiProperty({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: INT32_MAX,
    description: 'Size of the stored main rendition',
  })
  bytes: number;

  @ApiTimestampProperty('Upload time')
  createdAt: string;
}

export class PetImageListResponse {
  @ApiProperty({ type: [PetImageResponse], maxItems: MAX_PHOTO_URLS, description: 'Oldest first' })
  images: PetImageResponse[];
}

export class UploadImageResponse {
  @ApiProperty({ type: 'string', enum: ['Image uploaded'] })
  message: string;

  @ApiProperty({
    ...URL_SCHEMA,
    description: 'Absolute URL of the stored image, also appended to the pet’s photoUrls',
  })
  imageUrl: string;
}
