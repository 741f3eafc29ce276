import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module.js';
import { configureApp } from './app.setup.js';
import { AdminBootstrapService } from './users/accounts/admin-bootstrap.service.js';
import { appConfig, type AppConfig } from './config/app.config.js';
import { loadEnv } from './config/load-env.js';
import { createLogger, startupLoggerOptions } from './logging/logger.js';
import { AppLogger } from './logging/app-logger.service.js';
import { listeningMessage } from './logging/listening-message.js';
import { closeOnSignals } from './shutdown/shutdown-signals.js';
import { messageOf } from './common/errors/message-of.js';

// .env first: LOG_LEVEL and LOG_FORMAT set there shape the start-up logger, which stays the
// root of every line written outside a request. loadEnv() merges .env into process.env
// before validating, so an invalid value is reported through that logger just below.
let invalidEnv: Error | undefined;
try {
  loadEnv();
} catch (error) {
  invalidEnv = error as Error;
}
// Start-up messages go through the same pino logger as the rest; configureApp() then
// installs the configured one.
const startupLogger = AppLogger.over(await createLogger(startupLoggerOptions()));

async function bootstrap(): Promise<void> {
  // Before Nest: a bad variable then fails on one line, without Nest's stack trace.
  if (invalidEnv) throw invalidEnv;
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
  closeOnSignals(app, config.shutdown);
  try {
    await app.listen(config.port, config.host);
    const address = app.getHttpServer().address() as AddressInfo;
    new Logger('Bootstrap').log(listeningMessage(address));
  } finally {
    // Last, so that it stands out; also when listening failed, since the admin exists by then.
    app.get(AdminBootstrapService).announceGeneratedPassword();
  }
}

await bootstrap().catch((error: unknown) => {
  startupLogger.fatal(`Start-up failed: ${messageOf(error)}`);
  process.exit(1);
});
