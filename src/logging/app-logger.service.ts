import { Injectable } from '@nestjs/common';
import { Logger, PinoLogger, type Params } from 'nestjs-pino';
import type { Logger as Pino } from 'pino';

/**
 * nestjs-pino over a pino logger of ours. `useExisting`: the request logger is mounted by
 * configureApp(), first among the middleware, so that every request gets its line, also
 * one answered before Nest's module middleware runs (a 404 outside `/v1`, a body that
 * fails to parse). The module then only binds that request's logger, which carries the
 * request id, to the messages written while the request is served.
 */
export function loggerParams(root: Pino): Params {
  return { pinoHttp: { logger: root }, useExisting: true };
}

/**
 * Nest's start-up bookkeeping, a line per module initialised (InstanceLoader), per controller
 * (RoutesResolver) and per route mapped (RouterExplorer), some 75 in all, goes to debug: at
 * info, start-up is the handful of lines that say what happened and where the service
 * listens. (RoutesResolver's headings also put excluded controllers under the global prefix,
 * `/metrics` as `/v1/metrics`; RouterExplorer gives each route's real path.)
 */
const DEBUG_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/** Nest's logger interface over pino (nestjs-pino), so framework messages are JSON lines too. */
@Injectable()
export class AppLogger extends Logger {
  /** For the messages written before the app exists (main.ts). */
  static over(root: Pino): AppLogger {
    const params = loggerParams(root);
    return new AppLogger(new PinoLogger(params), params);
  }

  override log(message: unknown, ...params: unknown[]): void {
    const context = params.at(-1);
    if (typeof context === 'string' && DEBUG_CONTEXTS.has(context)) {
      this.debug(message, ...params);
    } else {
      super.log(message, ...params);
    }
  }
}
