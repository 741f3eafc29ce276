import { Logger, type INestApplication } from '@nestjs/common';
import { stackOf } from '../common/errors/message-of.js';

const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];
// Beyond draining requests, closing the pool, Redis and the embedded database.
const CLOSE_MARGIN_MS = 5_000;

/**
 * On SIGTERM or SIGINT, closes the app (draining requests, then the database) and exits 0;
 * exits 1 if closing fails or outlasts the drain by more than a few seconds. A second
 * signal during shutdown gets Node's default: immediate termination.
 */
export function closeOnSignals(app: INestApplication, shutdownTimeoutMs: number): void {
  const logger = new Logger('Shutdown');
  const onSignal = (signal: NodeJS.Signals): void => {
    for (const s of SIGNALS) process.removeListener(s, onSignal);
    logger.log(`${signal} received, shutting down`);
    setTimeout(() => {
      logger.fatal(`Shutdown did not finish within ${shutdownTimeoutMs + CLOSE_MARGIN_MS} ms`);
      process.exit(1);
    }, shutdownTimeoutMs + CLOSE_MARGIN_MS).unref();
    app.close().then(
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
