import { Global, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';
import { observabilityConfig, type ObservabilityConfig } from '../config/observability.config.js';
import { AppLogger, loggerParams } from './app-logger.service.js';
import { createLogger } from './logger.js';

export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

/**
 * nestjs-pino keeps one root logger per process, the first one it is given, for the messages
 * written outside a request: in the service that is main.ts's start-up logger, which reads
 * the same LOG_LEVEL and NODE_ENV as this one.
 */
@Global()
@Module({
  imports: [LoggerModule.forRootAsync({ inject: [ROOT_LOGGER], useFactory: loggerParams })],
  providers: [
    {
      provide: ROOT_LOGGER,
      inject: [observabilityConfig.KEY],
      useFactory: (config: ObservabilityConfig): Promise<Logger> =>
        createLogger({ level: config.logLevel, pretty: config.prettyLogs }),
    },
    AppLogger,
  ],
  exports: [ROOT_LOGGER, AppLogger],
})
export class LoggingModule {}
