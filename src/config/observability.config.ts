import { registerAs } from '@nestjs/config';
import { readEnv } from './env.schema.js';

export const observabilityConfig = registerAs('observability', () => {
  const env = readEnv();
  return {
    logLevel: env.LOG_LEVEL,
    prettyLogs: wantsPrettyLogs(env.NODE_ENV),
    metricsEnabled: env.METRICS_ENABLED,
    metricsToken: env.METRICS_TOKEN,
  };
});

export type ObservabilityConfig = ReturnType<typeof observabilityConfig>;

/** Colourful lines for a person at a terminal; JSON for everything that collects logs. */
export function wantsPrettyLogs(nodeEnv: string): boolean {
  return nodeEnv === 'development' && process.stdout.isTTY === true;
}
