import { Global, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { observabilityConfig, type ObservabilityConfig } from '../config/observability.config.js';
import { createLogger } from './logger.js';
import { PinoLoggerService } from './pino-logger.service.js';

export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

@Global()
@Module({
  providers: [
    {
      provide: ROOT_LOGGER,
      inject: [observabilityConfig.KEY],
      useFactory: (config: ObservabilityConfig): Promise<Logger> =>
        createLogger({ level: config.logLevel, pretty: config.prettyLogs }),
    },
    {
      provide: PinoLoggerService,
      inject: [ROOT_LOGGER],
      useFactory: (logger: Logger) => new PinoLoggerService(logger),
    },
  ],
  exports: [ROOT_LOGGER, PinoLoggerService],
})
export class LoggingModule {}
