import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module.js';
import { configureApp } from './app.setup.js';
import { appConfig, type AppConfig } from './config/app.config.js';
import { loadEnv } from './config/load-env.js';
import { closeOnSignals } from './lifecycle/shutdown-signals.js';
import { createLogger, startupLoggerOptions } from './logging/logger.js';
import { PinoLoggerService } from './logging/pino-logger.service.js';

// Start-up messages are JSON lines too; configureApp() then installs the configured logger.
const startupLogger = new PinoLoggerService(await createLogger(startupLoggerOptions()));

async function bootstrap(): Promise<void> {
  // Before Nest: a bad variable then fails on one line, without Nest's stack trace.
  loadEnv();
  // bodyParser off: JsonBodyMiddleware parses JSON and maps its errors to the contract.
  // abortOnError off: a failed start throws, so that it is reported and exits 1.
  const app = await NestFactory.create<NestExpressApplication>(AppModule, {
    bodyParser: false,
    logger: startupLogger,
    abortOnError: false,
  });
  configureApp(app);
  const config = app.get<AppConfig>(appConfig.KEY);
  closeOnSignals(app, config.shutdownTimeoutMs);
  await app.listen(config.port, config.host);
}

await bootstrap().catch((error: unknown) => {
  startupLogger.fatal(`Start-up failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
