import { Controller, Get, Header, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Public } from '../common/decorators/public.decorator.js';
import { ApiException } from '../common/errors/api-exception.js';
import { API_PREFIX, DOCS_PATH } from '../common/http/route-space.js';

const SWAGGER_UI_DIR = dirname(
  createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'),
);
// Only these files are served, by name: nothing else of the package (nor of the disk) is reachable.
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Pet store API</title>
    <link rel="stylesheet" href="/${DOCS_PATH}/swagger-ui.css" />
    <link rel="icon" type="image/png" href="/${DOCS_PATH}/favicon-32x32.png" sizes="32x32" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/${DOCS_PATH}/swagger-ui-bundle.js"></script>
    <script src="/${DOCS_PATH}/swagger-initializer.js"></script>
  </body>
</html>
`;

// A file rather than an inline script, so that a Content-Security-Policy of script-src 'self'
// allows it. validatorUrl null: Swagger UI would otherwise send the document to an outside
// validator; everything here is served by the app itself.
const INITIALIZER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/${API_PREFIX}/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: true,
  });
});
`;

/**
 * What Swagger UI needs and nothing more, on the page only (every other response keeps the
 * API's `default-src 'none'`): its script, initializer and style sheet from here; the
 * document and "Try it out" calls to /v1 on the same origin; `data:` images, which its
 * style sheet uses for icons. No inline script and no eval.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Interactive documentation (Swagger UI), outside /v1, public, served entirely by the app. */
@ApiExcludeController()
@Public()
@Controller(DOCS_PATH)
export class DocsController {
  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Content-Security-Policy', DOCS_CSP)
  page(): string {
    return PAGE;
  }

  @Get('swagger-initializer.js')
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  initializer(): string {
    return INITIALIZER;
  }

  @Get(':file')
  asset(@Param('file') file: string, @Res() res: Response): void {
    const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    if (!type) throw new ApiException('NOT_FOUND', `No such file: /${DOCS_PATH}/${file}`);
    res.type(type);
    res.sendFile(join(SWAGGER_UI_DIR, file), { maxAge: '1d' });
  }
}
