import { registerAs, type ConfigType } from '@nestjs/config';
import type { EnvironmentVariables } from './env.schema.js';
import { loadEnv } from './load-env.js';

export const observabilityConfig = registerAs(
  'observability',
  (env: EnvironmentVariables = loadEnv()) => ({
    logLevel: env.LOG_LEVEL,
    prettyLogs: wantsPrettyLogs(env.NODE_ENV),
    metricsEnabled: env.METRICS_ENABLED,
    metricsToken: env.METRICS_TOKEN,
  }),
);

export type ObservabilityConfig = ConfigType<typeof observabilityConfig>;

/** Colourful lines for a person at a terminal; JSON for everything that collects logs. */
export function wantsPrettyLogs(nodeEnv: string): boolean {
  return nodeEnv === 'development' && process.stdout.isTTY === true;
}
