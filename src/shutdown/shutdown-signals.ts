import { Logger, type INestApplication } from '@nestjs/common';
import { stackOf } from '../common/errors/message-of.js';
import type { AppConfig } from '../config/app.config.js';
import { ShutdownService } from './shutdown.service.js';

const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];
// Beyond the drain and requests in flight: closing the pool, Redis and the embedded database.
const CLOSE_MARGIN_MS = 5_000;

/**
 * On SIGTERM or SIGINT, drains (readiness 503 while still serving, SHUTDOWN_DRAIN_MS), then
 * closes the app (requests in flight, then the database) and exits 0; exits 1 if closing
 * fails or outlasts the drain and SHUTDOWN_TIMEOUT_MS by more than a few seconds. A second
 * signal during shutdown gets Node's default: immediate termination.
 */
export function closeOnSignals(app: INestApplication, timing: AppConfig['shutdown']): void {
  const logger = new Logger('Shutdown');
  const deadlineMs = timing.drainMs + timing.timeoutMs + CLOSE_MARGIN_MS;
  const onSignal = (signal: NodeJS.Signals): void => {
    for (const s of SIGNALS) process.removeListener(s, onSignal);
    logger.log(`${signal} received, shutting down`);
    setTimeout(() => {
      logger.fatal(`Shutdown did not finish within ${deadlineMs} ms`);
      process.exit(1);
    }, deadlineMs).unref();
    // Nothing else stops during the drain: the instance serves as usual, only not ready.
    app
      .get(ShutdownService)
      .drain()
      .then(() => app.close())
      .then(
        () => {
          logger.log('Shut down cleanly');
          process.exit(0);
        },
        (error: unknown) => {
          logger.fatal('Shutdown failed', stackOf(error));
          process.exit(1);
        },
      );
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
}
