import { Controller, Get, Headers, Param, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { Public } from '../common/decorators/public.decorator.js';
import {
  CACHE_CONTROL_HEADER,
  ETAG_HEADER,
  IF_NONE_MATCH_HEADER,
} from '../common/http/header-names.js';
import { MEDIA_PATH } from '../common/http/route-space.js';
import { ApiErrors } from '../openapi/api-errors.decorator.js';
import { CONTENT_TYPES } from './processing/image-format.js';
import { MEDIA_KEY_PATTERN } from './media-key.js';
import { MediaKeyPipe } from './media-key.pipe.js';
import { MediaService } from './media.service.js';

const ETAG_DOC = {
  description: 'Strong validator of the bytes: the key’s random part, quoted',
  required: true,
  schema: { type: 'string', maxLength: 34, pattern: '^"[0-9a-f]{32}"$' },
};

/** Stored images, outside /v1 and without credentials: their keys are unguessable. */
@ApiTags('media')
@Controller(MEDIA_PATH)
export class MediaController {
  constructor(private readonly mediaService: MediaService) {}

  @Public()
  @Get(':key')
  @ApiOperation({
    operationId: 'getMedia',
    summary: 'Download a stored image',
    description:
      'The URLs in imageUrl, photoUrls and the image list point here. No credential: ' +
      'possession of the unguessable URL is the permission. Outside /v1 and not rate limited.',
  })
  @ApiParam({
    name: 'key',
    description: '128 random bits in hex plus the extension',
    schema: { type: 'string', maxLength: 36, pattern: MEDIA_KEY_PATTERN.source },
  })
  @ApiResponse({
    status: 200,
    description: 'The image, cacheable forever',
    content: Object.fromEntries(Object.values(CONTENT_TYPES).map((type) => [type, {}])),
    headers: {
      [ETAG_HEADER]: ETAG_DOC,
      [CACHE_CONTROL_HEADER]: {
        description: 'Stored objects never change under their key',
        required: true,
        schema: { type: 'string', enum: ['public, max-age=31536000, immutable'] },
      },
    },
  })
  @ApiResponse({
    status: 304,
    description: 'If-None-Match matched: the client’s copy is current',
    headers: { [ETAG_HEADER]: ETAG_DOC },
  })
  @ApiErrors({ 404: ['NOT_FOUND'], 503: ['SERVICE_UNAVAILABLE'] })
  async serve(
    @Param('key', MediaKeyPipe) key: string,
    @Headers(IF_NONE_MATCH_HEADER) ifNoneMatch: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const media = await this.mediaService.open(key, ifNoneMatch);
    res.set(media.headers);
    if (media.notModified) {
      res.status(304).end();
      return;
    }
    res.status(200).set('Content-Length', String(media.size));
    // A client that goes away mid-transfer is not an error worth a log line.
    await pipeline(media.body, res).catch(() => res.destroy());
  }
}
