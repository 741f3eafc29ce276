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
 * Nest's RoutesResolver heads each controller's routes with the controller's path under the
 * global prefix, also for controllers the prefix excludes (it checks exclusions per route,
 * and a heading has no method), so `/metrics` was announced as `/v1/metrics`. The
 * RouterExplorer lines that follow give each route's real path; the headings go to debug.
 */
const DEBUG_CONTEXTS = new Set(['RoutesResolver']);

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
