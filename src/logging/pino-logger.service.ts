import type { LoggerService } from '@nestjs/common';
import type { Level, Logger } from 'pino';

// Nest passes the context last and, for errors, a stack trace before it.
const STACK_TRACE = /\n\s+at /;

/**
 * Nest's RoutesResolver heads each controller's routes with the controller's path under the
 * global prefix, also for controllers the prefix excludes (it checks exclusions per route,
 * and a heading has no method), so `/metrics` was announced as `/v1/metrics`. The
 * RouterExplorer lines that follow give each route's real path; the headings go to debug.
 */
const DEBUG_CONTEXTS = new Set(['RoutesResolver']);

/** Nest's logger interface over pino, so framework messages are JSON lines too. */
export class PinoLoggerService implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    const rest = [...params];
    const context = typeof rest.at(-1) === 'string' ? (rest.pop() as string) : undefined;
    const stack = rest.find((p): p is string => typeof p === 'string' && STACK_TRACE.test(p));
    const fields = { ...(context ? { context } : {}), ...(stack ? { stack } : {}) };
    if (level === 'info' && context !== undefined && DEBUG_CONTEXTS.has(context)) level = 'debug';
    if (message instanceof Error) {
      this.logger[level]({ ...fields, err: message }, message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.logger[level]({ ...fields, ...message });
    } else {
      this.logger[level](fields, String(message));
    }
  }
}
