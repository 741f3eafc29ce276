import { registerAs, type ConfigType } from '@nestjs/config';
import type { EnvironmentVariables } from './env.schema.js';
import { loadEnv } from './load-env.js';

/** A delivery is retried this long after its first attempt: docs/events.md (Retries) promises it. */
export const WEBHOOK_RETRY_FOR_MS = 24 * 60 * 60 * 1000;

export const webhooksConfig = registerAs('webhooks', (env: EnvironmentVariables = loadEnv()) => ({
  /** Loopback and private ranges become acceptable targets; link-local and metadata never do. */
  allowPrivateAddresses: env.WEBHOOKS_ALLOW_PRIVATE_ADDRESSES,
  /** First retry waits up to this; each further one up to twice as long (full jitter). */
  retryBaseMs: env.WEBHOOKS_RETRY_BASE_MS,
  retryForMs: WEBHOOK_RETRY_FOR_MS,
  /** Subscriptions one account may own (the store's own, made before owners, count for none). */
  perUser: env.WEBHOOKS_PER_USER,
  connectTimeoutMs: 5_000,
  totalTimeoutMs: 10_000,
  maxStoredResponseBytes: 1024,
  /** The delivery log keeps an ended delivery (and its attempts) this long. */
  deliveryLogRetentionMs: 30 * 24 * 60 * 60 * 1000,
}));

export type WebhooksConfig = ConfigType<typeof webhooksConfig>;
