import { ConfigModule } from '@nestjs/config';
import { appConfig } from './app.config.js';
import { authConfig } from './auth.config.js';
import { databaseConfig } from './database.config.js';
import { validateEnv } from './env.schema.js';
import { mediaConfig } from './media.config.js';
import { observabilityConfig } from './observability.config.js';
import { rateLimitConfig } from './rate-limit.config.js';

/** The one configuration set-up, shared by the app and the CLI. */
export const AppConfigModule = ConfigModule.forRoot({
  isGlobal: true,
  ignoreEnvFile: process.env.NODE_ENV === 'test',
  load: [appConfig, databaseConfig, authConfig, mediaConfig, observabilityConfig, rateLimitConfig],
  validate: validateEnv,
});
