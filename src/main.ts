import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module.js';
import { configureApp } from './app.setup.js';
import { AdminBootstrapService } from './auth/admin-bootstrap.service.js';
import { API_PREFIX, CONSOLE_PATH, DOCS_PATH } from './common/http/route-space.js';
import { appConfig, type AppConfig } from './config/app.config.js';
import { loadEnv } from './config/load-env.js';
import { createLogger, startupLoggerOptions } from './logging/logger.js';
import { AppLogger } from './logging/app-logger.service.js';
import { closeOnSignals } from './shutdown/shutdown-signals.js';
import { messageOf } from './common/errors/message-of.js';

// Start-up messages are JSON lines too; configureApp() then installs the configured logger.
const startupLogger = AppLogger.over(await createLogger(startupLoggerOptions()));

async function bootstrap(): Promise<void> {
  // Before Nest: a bad variable then fails on one line, without Nest's stack trace.
  loadEnv();
  // bodyParser off: JsonBodyMiddleware parses JSON and maps its errors to those of
  // docs/input.md.
  // abortOnError off: a failed start throws, so that it is reported and exits 1.
  const app = await NestFactory.create<NestExpressApplication>(AppModule, {
    bodyParser: false,
    logger: startupLogger,
    abortOnError: false,
  });
  configureApp(app);
  const config = app.get<AppConfig>(appConfig.KEY);
  closeOnSignals(app, config.shutdownTimeoutMs);
  try {
    await app.listen(config.port, config.host);
    const url = await app.getUrl();
    new Logger('Bootstrap').log(
      `Listening on ${url}: API ${url}/${API_PREFIX}, console ${url}/${CONSOLE_PATH}, docs ${url}/${DOCS_PATH}`,
    );
  } finally {
    // Last, so that it stands out; also when listening failed, since the admin exists by then.
    app.get(AdminBootstrapService).announceGeneratedPassword();
  }
}

await bootstrap().catch((error: unknown) => {
  startupLogger.fatal(`Start-up failed: ${messageOf(error)}`);
  process.exit(1);
});
