import { ConfigModule } from '@nestjs/config';
import { appConfig } from './app.config.js';
import { adoptionsConfig } from './adoptions.config.js';
import { auditConfig } from './audit.config.js';
import { authConfig } from './auth.config.js';
import { databaseConfig } from './database.config.js';
import { mailConfig } from './mail.config.js';
import { mediaConfig } from './media.config.js';
import { oidcConfig } from './oidc.config.js';
import { observabilityConfig } from './observability.config.js';
import { outboxConfig } from './outbox.config.js';
import { petImportsConfig } from './pet-imports.config.js';
import { rateLimitConfig } from './rate-limit.config.js';
import { webhooksConfig } from './webhooks.config.js';

/**
 * The one configuration set-up, shared by the app and the CLI. Each namespace is built from
 * loadEnv(), which reads `.env` and validates the environment once; ConfigModule registers
 * them, and a feature injects one with `@Inject(xConfig.KEY)`, typed by the file's `XConfig`.
 */
export const AppConfigModule = ConfigModule.forRoot({
  isGlobal: true,
  // loadEnv() reads .env, for the scripts that run without Nest too.
  ignoreEnvFile: true,
  load: [
    appConfig,
    adoptionsConfig,
    auditConfig,
    authConfig,
    databaseConfig,
    mailConfig,
    mediaConfig,
    observabilityConfig,
    oidcConfig,
    outboxConfig,
    petImportsConfig,
    rateLimitConfig,
    webhooksConfig,
  ],
});
