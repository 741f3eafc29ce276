import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../common/decorators/public.decorator.js';
import { ApiException } from '../common/errors/api-exception.js';
import { CACHE_CONTROL_HEADER } from '../common/http/header-names.js';
import { CONSOLE_PATH } from '../common/http/route-space.js';
import { ConsoleBundle } from './console-bundle.js';

/**
 * The console's pages may load only what the service itself serves: its script and style
 * files, images from /media, and calls to /v1. No inline script or style, no framing, and
 * no HTML written from strings (Trusted Types).
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
].join('; ');

/**
 * The web console (console/), a single-page app on the public /v1 API. Every path under
 * /console that is not an asset answers the page, so that its own routes can be bookmarked.
 */
@ApiExcludeController()
@Public()
@Controller(CONSOLE_PATH)
export class ConsoleController {
  constructor(private readonly bundle: ConsoleBundle) {}

  @Get('assets/:file')
  asset(@Param('file') file: string, @Res() res: Response): void {
    const type = this.bundle.contentTypeOf(file);
    if (!type) {
      throw new ApiException('NOT_FOUND', `No such file: /${CONSOLE_PATH}/assets/${file}`);
    }
    res.setHeader('Content-Security-Policy', CONSOLE_CSP);
    res.type(type);
    // Asset names carry their content hash: a new build means new names.
    res.sendFile(file, { root: this.bundle.assetsDir, maxAge: '365d', immutable: true });
  }

  @Get()
  async page(@Res() res: Response): Promise<void> {
    await this.sendPage(res);
  }

  @Get('*route')
  async pageOfRoute(@Res() res: Response): Promise<void> {
    await this.sendPage(res);
  }

  private async sendPage(res: Response): Promise<void> {
    const page = await this.bundle.page();
    if (page === undefined) {
      throw new ApiException('NOT_FOUND', 'The console is not built: run npm run build');
    }
    res.setHeader('Content-Security-Policy', CONSOLE_CSP);
    // The page names the current build's assets, so it is checked on every visit.
    res.setHeader(CACHE_CONTROL_HEADER, 'no-cache');
    res.type('text/html; charset=utf-8').send(page);
  }
}
