import { registerAs, type ConfigType } from '@nestjs/config';
import type { EnvironmentVariables } from './env.schema.js';
import { loadEnv } from './load-env.js';

export const observabilityConfig = registerAs(
  'observability',
  (env: EnvironmentVariables = loadEnv()) => ({
    logLevel: env.LOG_LEVEL,
    prettyLogs: wantsPrettyLogs(env.NODE_ENV, env.LOG_FORMAT),
    metricsEnabled: env.METRICS_ENABLED,
    metricsToken: env.METRICS_TOKEN,
  }),
);

export type ObservabilityConfig = ConfigType<typeof observabilityConfig>;

/**
 * LOG_FORMAT when set; otherwise readable lines for a person at a terminal, outside
 * production, and JSON for everything that collects logs.
 */
export function wantsPrettyLogs(
  nodeEnv: string,
  format: string | undefined,
  isTerminal = process.stdout.isTTY === true,
): boolean {
  if (format === 'pretty' || format === 'json') return format === 'pretty';
  return nodeEnv !== 'production' && isTerminal;
}
