import { Global, Module } from '@nestjs/common';
import { appConfig } from './app.config.js';
import { authConfig } from './auth.config.js';
import { databaseConfig } from './database.config.js';
import { loadEnv } from './load-env.js';
import { mediaConfig } from './media.config.js';
import { observabilityConfig } from './observability.config.js';
import { rateLimitConfig } from './rate-limit.config.js';

const ENVIRONMENT = Symbol('ENVIRONMENT');
const NAMESPACES = [
  appConfig,
  authConfig,
  databaseConfig,
  mediaConfig,
  observabilityConfig,
  rateLimitConfig,
];

/**
 * The one configuration set-up, shared by the app and the CLI: the environment is read and
 * validated once per application, when it is created, and each namespace is built from it.
 */
@Global()
@Module({
  providers: [
    { provide: ENVIRONMENT, useFactory: loadEnv },
    ...NAMESPACES.map((namespace) => ({
      provide: namespace.KEY,
      useFactory: namespace,
      inject: [ENVIRONMENT],
    })),
  ],
  exports: NAMESPACES.map((namespace) => namespace.KEY),
})
export class AppConfigModule {}
