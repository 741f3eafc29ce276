import { registerAs } from '@nestjs/config';
import { wantsPrettyLogs } from '../logging/logger.js';
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
