import { Controller, Get, Headers, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { Public } from '../common/decorators/public.decorator.js';
import { MediaKeyPipe } from './media-key.pipe.js';
import { MEDIA_PATH, MediaService } from './media.service.js';

/** Stored images, outside /v1 and without credentials: their keys are unguessable. */
@Controller(MEDIA_PATH)
export class MediaController {
  constructor(private readonly mediaService: MediaService) {}

  @Public()
  @Get(':key')
  async serve(
    @Param('key', MediaKeyPipe) key: string,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
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
