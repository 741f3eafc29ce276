import type { NestExpressApplication } from '@nestjs/platform-express';
import { outsidePrefixNotFound } from './common/http/outside-prefix.middleware.js';
import { requestIdMiddleware } from './common/http/request-id.middleware.js';

export const API_PREFIX = 'v1';

/** Everything main.ts does to the app besides listening; e2e tests call it too. */
export function configureApp(app: NestExpressApplication): NestExpressApplication {
  app.disable('x-powered-by');
  app.use(requestIdMiddleware);
  app.use(outsidePrefixNotFound(API_PREFIX));
  app.setGlobalPrefix(API_PREFIX);
  app.enableShutdownHooks();
  return app;
}
