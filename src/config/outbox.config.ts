import { registerAs, type ConfigType } from '@nestjs/config';
import type { EnvironmentVariables } from './env.schema.js';
import { loadEnv } from './load-env.js';

export const outboxConfig = registerAs('outbox', (env: EnvironmentVariables = loadEnv()) => ({
  /** How often each instance looks for due outbox messages when nothing nudged it. */
  pollIntervalMs: env.OUTBOX_POLL_INTERVAL_MS,
  /** The wait after a failed attempt; it doubles with each further one, up to maxRetryMs. */
  retryBaseMs: env.OUTBOX_RETRY_BASE_MS,
  maxRetryMs: 10 * 60 * 1000,
  /** Attempts per message; after the last one fails, the message is kept as failed. */
  maxAttempts: env.OUTBOX_MAX_ATTEMPTS,
  /**
   * How long a claim holds a message before another instance may take it over (its holder is
   * then presumed dead): the holder renews it every third of it while the job runs.
   */
  leaseMs: env.OUTBOX_LEASE_MS,
}));

export type OutboxConfig = ConfigType<typeof outboxConfig>;
