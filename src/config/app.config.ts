import { registerAs, type ConfigType } from '@nestjs/config';
import type { EnvironmentVariables } from './env.schema.js';
import { loadEnv } from './load-env.js';

export const appConfig = registerAs('app', (env: EnvironmentVariables = loadEnv()) => ({
  nodeEnv: env.NODE_ENV,
  port: env.PORT,
  host: env.HOST,
  dataDir: env.DATA_DIR,
  publicBaseUrl: env.PUBLIC_BASE_URL?.replace(/\/+$/, ''),
  trustProxy: parseTrustProxy(env.TRUST_PROXY),
  corsOrigins: env.CORS_ORIGINS?.split(',').map((origin) => origin.trim()) ?? [],
  http: {
    requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
    headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
    keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    maxConnections: env.HTTP_MAX_CONNECTIONS,
  },
  shutdown: { drainMs: env.SHUTDOWN_DRAIN_MS, timeoutMs: env.SHUTDOWN_TIMEOUT_MS },
}));

export type AppConfig = ConfigType<typeof appConfig>;

/** Express's `trust proxy`: a hop count, or the list of trusted proxy addresses. */
function parseTrustProxy(value: string | undefined): number | string[] | false {
  if (value === undefined) return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value.split(',').map((entry) => entry.trim());
}
