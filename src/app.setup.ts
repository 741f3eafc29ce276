import type { Server } from 'node:http';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { appConfig, type AppConfig } from './config/app.config.js';
import {
  ACCEPTED_SCOPES_HEADER,
  API_KEY_HEADER,
  AUTHORIZATION_HEADER,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  RATE_LIMIT_LIMIT_HEADER,
  RATE_LIMIT_REMAINING_HEADER,
  RATE_LIMIT_RESET_HEADER,
  REQUEST_ID_HEADER,
  RETRY_AFTER_HEADER,
} from './common/http/header-names.js';
import { clientAddressMiddleware } from './common/http/client-address.middleware.js';
import { outsidePrefixNotFound } from './common/http/outside-prefix.middleware.js';
import { requestIdMiddleware } from './common/http/request-id.middleware.js';
import { securityHeaders } from './common/http/security-headers.js';
import { applyApiPrefix } from './common/http/route-space.js';
import { deliverEarlyAnswers } from './common/http/early-answers.js';
import { ShutdownService } from './shutdown/shutdown.service.js';
import { ROOT_LOGGER } from './logging/logging.module.js';
import { AppLogger } from './logging/app-logger.service.js';
import { requestLogger } from './logging/request-logger.middleware.js';
import { MetricsService } from './metrics/metrics.service.js';
import { publishOpenApiDocument } from './openapi/published-openapi.js';

// How often Node looks for requests past their timeouts (its default is 30 s).
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** Everything main.ts does to the app besides listening; e2e tests call it too. */
export function configureApp(app: NestExpressApplication): NestExpressApplication {
  const config = app.get<AppConfig>(appConfig.KEY);
  app.useLogger(app.get(AppLogger));
  app.disable('x-powered-by');
  // No ETag from a hash of every body: single resources send one from their row version.
  app.disable('etag');
  caseSensitiveRoutes(app);
  app.set('trust proxy', config.trustProxy);
  applyHttpLimits(app.getHttpServer(), config.http);
  deliverEarlyAnswers(app.getHttpServer());

  app.use(requestIdMiddleware);
  app.use(clientAddressMiddleware);
  const shutdown = app.get(ShutdownService);
  app.use(shutdown.trackRequests());
  app.use(requestLogger(app.get(ROOT_LOGGER)));
  const metrics = app.get(MetricsService);
  if (metrics.enabled) app.use(metrics.observeRequests());
  app.use(shutdown.handOffRetryable());
  app.use(
    securityHeaders({
      // A JSON API: nothing may be loaded by or framed in a page that renders a response.
      contentSecurityPolicy: {
        useDefaults: false,
        directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
      },
      // Clients on other origins (CORS_ORIGINS) must be able to use the responses.
      crossOriginResourcePolicy: { policy: 'cross-origin' },
    }),
  );
  if (config.corsOrigins.length > 0) {
    app.enableCors({
      origin: config.corsOrigins,
      allowedHeaders: [
        AUTHORIZATION_HEADER,
        'Content-Type',
        API_KEY_HEADER,
        REQUEST_ID_HEADER,
        IDEMPOTENCY_KEY_HEADER,
      ],
      exposedHeaders: [
        REQUEST_ID_HEADER,
        RATE_LIMIT_LIMIT_HEADER,
        RATE_LIMIT_REMAINING_HEADER,
        RATE_LIMIT_RESET_HEADER,
        RETRY_AFTER_HEADER,
        IDEMPOTENT_REPLAYED_HEADER,
        ACCEPTED_SCOPES_HEADER,
      ],
      maxAge: 600,
    });
  }
  app.use(outsidePrefixNotFound);
  applyApiPrefix(app);
  publishOpenApiDocument(app);
  return app;
}

/**
 * `/V1/...` is an unknown path, not a way around what is decided by the canonical one
 * (rate limits among it). Express reads 'case sensitive routing' when it creates its
 * router, which Nest's adapter has done already; the router applies its own setting to
 * each route as it is added, and the routes are added later, by app.init().
 */
function caseSensitiveRoutes(app: NestExpressApplication): void {
  const express = app.getHttpAdapter().getInstance();
  express.set('case sensitive routing', true);
  (express.router as unknown as { caseSensitive: boolean }).caseSensitive = true;
}

function applyHttpLimits(server: Server, limits: AppConfig['http']): void {
  server.requestTimeout = limits.requestTimeoutMs;
  server.headersTimeout = limits.headersTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  // Node closes a connection accepted beyond this number at once.
  if (limits.maxConnections !== undefined) server.maxConnections = limits.maxConnections;
  // A createServer() option that Node reads when the server starts listening; Nest
  // creates the server without options, so it is set here, before listen().
  Object.assign(server, { connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS });
}
