import { ConfigService } from '@nestjs/config';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AppConfig } from './config/app.config.js';
import { outsidePrefixNotFound } from './common/http/outside-prefix.middleware.js';
import { requestIdMiddleware } from './common/http/request-id.middleware.js';
import { publishOpenApiDocument } from './openapi/openapi.setup.js';

export const API_PREFIX = 'v1';
// Operational routes that live outside the versioned API.
export const UNPREFIXED_ROUTES = ['media/:key', 'docs', 'docs/:file'];

/** Everything main.ts does to the app besides listening; e2e tests call it too. */
export function configureApp(app: NestExpressApplication): NestExpressApplication {
  app.disable('x-powered-by');
  app.set(
    'trust proxy',
    app.get(ConfigService).getOrThrow<AppConfig['trustProxy']>('app.trustProxy'),
  );
  app.use(requestIdMiddleware);
  app.use(outsidePrefixNotFound(API_PREFIX));
  app.setGlobalPrefix(API_PREFIX, { exclude: UNPREFIXED_ROUTES });
  publishOpenApiDocument(app);
  app.enableShutdownHooks();
  return app;
}
